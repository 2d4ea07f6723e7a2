import CatSupport

/// `s3://bucket/key` (an object) or `s3://bucket/prefix/` and `s3://bucket` (a prefix:
/// the objects whose keys start with it). The key is taken as written, byte for byte:
/// nothing in it is percent-decoded, so `s3://b/a%20b.jpg` names the key `a%20b.jpg`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// The object's key, or the prefix ("" for the whole bucket).
    public let key: String

    public static let scheme = "s3://"

    /// Whether `path` is meant for S3 (it starts with `s3://`, any case).
    public static func names(_ path: String) -> Bool {
        // The first five bytes, ASCII letters folded: every path catctl opens or writes asks.
        path.utf8.count >= 5
            && zip(path.utf8, "s3://".utf8).allSatisfy { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) == $1 }
    }

    /// Parses `s3://bucket[/key]`; throws `invalidLocation` with the reason.
    public init(_ text: String) throws(S3Error) {
        guard Self.names(text) else { throw .invalidLocation(text, reason: "it does not start with s3://") }
        let rest = String(text.unicodeScalars.dropFirst(5))
        let slash = rest.unicodeScalars.firstIndex(of: "/")
        let bucket = slash.map { String(rest.unicodeScalars[..<$0]) } ?? rest
        let key = slash.map { String(rest.unicodeScalars[rest.unicodeScalars.index(after: $0)...]) } ?? ""
        if let problem = Self.problem(bucket: bucket) { throw .invalidLocation(text, reason: problem) }
        guard key.utf8.count <= 1024 else { throw .invalidLocation(text, reason: "its key is over S3's 1024 bytes") }
        if let problem = Self.problem(key: key) { throw .invalidLocation(text, reason: problem) }
        self.init(bucket: bucket, key: key)
    }

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// A prefix rather than one object: the key is empty or ends with "/".
    public var isPrefix: Bool { key.isEmpty || key.hasSuffix("/") }

    /// As written on the command line.
    public var description: String { "s3://\(bucket)/\(key)" }

    /// The object `name` below this prefix.
    public func appending(_ name: String) -> S3Location {
        S3Location(bucket: bucket, key: isPrefix ? key + name : key + "/" + name)
    }

    /// Whether `other`'s key starts with this prefix (same bucket): an output there would be
    /// listed with the inputs of the next run.
    public func contains(_ other: S3Location) -> Bool {
        bucket == other.bucket && other.key.utf8.starts(with: key.utf8)
    }

    /// S3's rules for a bucket's name (3-63 letters, digits, dots, hyphens; uppercase and
    /// underscores only as older buckets and other servers allow them), or nil.
    static func problem(bucket: String) -> String? {
        if bucket.isEmpty { return "it names no bucket" }
        guard (3...63).contains(bucket.utf8.count) else { return "a bucket's name is 3 to 63 characters" }
        guard bucket.utf8.allSatisfy({ Self.bucketCharacters.contains($0) }) else {
            return "a bucket's name has only letters, digits, '.', '-' and '_'"
        }
        guard let first = bucket.utf8.first, let last = bucket.utf8.last, Self.isAlphanumeric(first),
            Self.isAlphanumeric(last)
        else { return "a bucket's name starts and ends with a letter or a digit" }
        return nil
    }

    /// A key with a "." or ".." segment is refused: servers built on a file tree (SeaweedFS's
    /// filer, JuiceFS) and URL libraries resolve them, so `a/../../other/x` would write to
    /// another bucket, under an input prefix, or over an input, past every check made on
    /// the key as written. Such keys cannot be named, read or listed by catctl.
    static func problem(key: String) -> String? {
        let segments = key.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: { $0 == "." || $0 == ".." }) {
            return "a key with a \".\" or \"..\" segment is refused (servers would resolve it elsewhere)"
        }
        return nil
    }

    private static let bucketCharacters = Set(
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_".utf8))
    private static func isHexDigit(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    /// SigV4's URI encoding: every byte but A-Z a-z 0-9 - _ . ~ as %XX (uppercase); "/"
    /// kept when `keepSlash` (an object's path).
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in FileNames.encode(text) {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash: out += "/"
            default: out += String(printf: "%%%02X", byte)
            }
        }
        return out
    }

    /// The other way, for keys in a listing asked for with encoding-type=url: %XX and "+"
    /// (a space). Bytes that are not UTF-8 are kept as FileNames keeps them.
    static func decodeListed(_ text: String) -> String {
        var bytes: [UInt8] = []
        var it = Array(text.utf8)[...]
        while let c = it.popFirst() {
            if c == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if c == UInt8(ascii: "%"), it.count >= 2, it.prefix(2).allSatisfy(Self.isHexDigit),
                let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(c)
            }
        }
        return FileNames.decode(bytes)
    }
}
