/// File names are bytes, not text: Linux allows any byte but `/` and NUL, and a name need
/// not be UTF-8. catctl keeps paths as Swift strings, so a name that is not UTF-8 is
/// decoded losslessly: each byte that is not part of valid UTF-8 (always 0x80–0xFF) becomes
/// the scalar U+10FF00 + byte (U+10FF80…U+10FFFF, the last code points of plane 16's private
/// use area), and each of those scalars becomes its byte again on the way back to the
/// kernel. A name that really holds one of those scalars keeps its bytes too: its four
/// bytes are decoded one scalar each. So `encode(decode(bytes)) == bytes` for every byte string (the idea
/// of Python's `surrogateescape`, which Swift strings cannot hold).
///
/// Every system call that takes a path goes through `FileNames.withPath`; the views show
/// such bytes as `\ooo` (as GNU ls does) and JSON as U+FFFD.
public enum FileNames {
    static let rawBase: UInt32 = 0x10_FF00

    /// The byte a scalar stands for, when it is one of the raw-byte scalars. Only bytes
    /// 0x80–0xFF are ever raw (a byte below 0x80 is always valid UTF-8), so U+10FF00–U+10FF7F
    /// stay text: no string can smuggle a "/" or a NUL into a path this way.
    public static func rawByte(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= rawBase + 0x80 ? UInt8(truncatingIfNeeded: scalar.value - rawBase) : nil
    }

    /// The name of `bytes` (a path, a directory entry, a command-line argument).
    public static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var scalars = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        var pending: [UInt8] = []  // bytes of the scalar being read
        var expected = 0
        func flushRaw() {
            for byte in pending { scalars.append(Unicode.Scalar(rawBase + UInt32(byte))!) }
            pending.removeAll()
            expected = 0
        }
        while let byte = iterator.next() {
            if expected > 0 {
                if byte & 0xC0 == 0x80 {
                    pending.append(byte)
                    if pending.count == expected {
                        if let scalar = scalar(of: pending), rawByte(scalar) == nil {
                            scalars.append(scalar)
                            pending.removeAll()
                            expected = 0
                        } else {
                            flushRaw()
                        }
                    }
                    continue
                }
                flushRaw()
            }
            switch byte {
            case 0x00...0x7F: scalars.append(Unicode.Scalar(byte))
            case 0xC2...0xDF: (pending, expected) = ([byte], 2)
            case 0xE0...0xEF: (pending, expected) = ([byte], 3)
            case 0xF0...0xF4: (pending, expected) = ([byte], 4)
            default: scalars.append(Unicode.Scalar(rawBase + UInt32(byte))!)
            }
        }
        flushRaw()
        return String(scalars)
    }

    /// The scalar of one complete UTF-8 sequence, or nil when it is overlong, a surrogate or out of range.
    private static func scalar(of bytes: [UInt8]) -> Unicode.Scalar? {
        var value: UInt32
        switch bytes.count {
        case 2: value = UInt32(bytes[0] & 0x1F)
        case 3: value = UInt32(bytes[0] & 0x0F)
        default: value = UInt32(bytes[0] & 0x07)
        }
        for byte in bytes.dropFirst() { value = value << 6 | UInt32(byte & 0x3F) }
        let minimum: UInt32 = bytes.count == 2 ? 0x80 : bytes.count == 3 ? 0x800 : 0x1_0000
        guard value >= minimum else { return nil }
        return Unicode.Scalar(value)
    }

    /// The bytes of a name made by `decode` (any other string: its UTF-8).
    public static func encode(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if let raw = rawByte(scalar) {
                bytes.append(raw)
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Runs `body` with the NUL-terminated bytes of `path`. A path holding a NUL byte names
    /// no file (the call would stop there, at another file): `body` gets the empty path,
    /// which every system call refuses (ENOENT). Callers refuse such names with a message
    /// of their own first (`problem(of:)`); this is the floor under them.
    public static func withPath<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var bytes = encode(path)
        if bytes.contains(0) { bytes = [] }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// The non-empty components of `path`, split at its "/" scalars, never at Characters: a
    /// name starting with a combining mark would otherwise fuse with the "/" before it.
    public static func components(of path: String) -> [String] {
        path.unicodeScalars.split(separator: "/").map { String(String.UnicodeScalarView($0)) }
    }

    /// Whether a name is hidden (its first byte is ".").
    public static func isHidden(_ name: String) -> Bool { name.unicodeScalars.first == "." }

    /// The process's arguments as `decode` names them (CommandLine.arguments replaces bytes that are not UTF-8).
    public static func commandLineArguments() -> [String] {
        (0..<Int(CommandLine.argc)).map { i in
            guard let argument = CommandLine.unsafeArgv[i] else { return "" }
            return decode(
                UnsafeBufferPointer(start: argument, count: strlen(argument)).lazy.map { UInt8(bitPattern: $0) })
        }
    }
}

extension FileNames {
    /// FNV-1a (64 bits) of a name's bytes: what batch shards and plans by, so every machine
    /// agrees on it (a name that is not UTF-8 hashes its own bytes).
    public static func hash<C: Collection<UInt8>>(bytes: C) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    public static func hash(_ name: String) -> UInt64 { hash(bytes: encode(name)) }

    /// `hash(bytes:)` over raw memory, with no generic code (millions of manifest lines).
    public static func hash(raw: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in raw {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
