import CatSupport

/// The few elements catctl reads from S3's XML replies (a listing's keys, an error's code,
/// a multipart upload's id), found by a small scanner of its own. S3 replies are flat
/// documents of a handful of element kinds; an XML library (libxml2, through
/// FoundationXML) would be a large parser and a new dependency for that. The scanner reads
/// element text only, decodes the five named entities and numeric references, skips
/// declarations, comments and CDATA as text, and stops at `maxElements` (a reply is
/// untrusted text: Fuzz/FuzzS3XML.swift runs it on anything).
struct S3XML {
    /// Every element with text and no child, in document order: its name (without a
    /// namespace prefix) and its decoded text; `depth` is how many elements enclose it.
    struct Element: Equatable {
        let name: String
        let text: String
        let depth: Int
        /// Which `Contents` (or other parent) it is in: the index of that parent's start.
        let parent: Int
    }

    /// A page of ListObjectsV2 holds at most 1000 keys of seven elements or so.
    static let maxElements = 100_000
    let elements: [Element]
    /// The document went on past `maxElements` (or nested deeper than 64): `elements` holds
    /// only its start, and nothing may be concluded from what is missing (a listing's
    /// `IsTruncated` comes last).
    let cut: Bool

    init(_ bytes: [UInt8]) {
        var elements: [Element] = []
        var stack: [(name: String, start: Int)] = []
        var starts = 0
        var i = 0
        var text: [UInt8] = []
        let n = bytes.count
        func name(_ raw: ArraySlice<UInt8>) -> String {
            let local = raw.lastIndex(of: UInt8(ascii: ":")).map { raw[($0 + 1)...] } ?? raw
            return String(decoding: local, as: UTF8.self)
        }
        var cut = false
        while i < n {
            guard elements.count < Self.maxElements else {
                cut = true
                break
            }
            guard bytes[i] == UInt8(ascii: "<") else {
                text.append(bytes[i])
                i += 1
                continue
            }
            // <!-- -->, <![CDATA[ ]]>, <? ?>, <!DOCTYPE >: a CDATA's text is kept, the rest skipped.
            if bytes[i...].starts(with: Array("<![CDATA[".utf8)) {
                let body = i + 9
                let end = Self.find(Array("]]>".utf8), in: bytes, from: body) ?? n
                text += bytes[body..<end]
                i = min(n, end + 3)
                continue
            }
            if bytes[i...].starts(with: Array("<!--".utf8)) {
                i = min(n, (Self.find(Array("-->".utf8), in: bytes, from: i + 4) ?? n) + 3)
                continue
            }
            guard let close = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { break }
            let tag = bytes[(i + 1)..<close]
            i = close + 1
            guard let first = tag.first, first != UInt8(ascii: "?"), first != UInt8(ascii: "!") else { continue }
            if first == UInt8(ascii: "/") {
                let closing = name(tag.dropFirst().prefix { !Self.isSpace($0) })
                if let top = stack.last, top.name == closing {
                    stack.removeLast()
                    if top.start == starts - 1 {  // no child since it opened: a text element
                        elements.append(
                            Element(
                                name: closing, text: Self.decode(text), depth: stack.count,
                                parent: stack.last?.start ?? -1))
                    }
                }
                text.removeAll(keepingCapacity: true)
                continue
            }
            let selfClosing = tag.last == UInt8(ascii: "/")
            let opened = name(tag.prefix { !Self.isSpace($0) && $0 != UInt8(ascii: "/") })
            if selfClosing {
                elements.append(Element(name: opened, text: "", depth: stack.count, parent: stack.last?.start ?? -1))
                starts += 1
                continue
            }
            guard stack.count < 64 else {
                cut = true
                break
            }
            stack.append((opened, starts))
            starts += 1
            text.removeAll(keepingCapacity: true)
        }
        self.elements = elements
        self.cut = cut
    }

    /// The text of the first element called `name`.
    func first(_ name: String) -> String? { elements.first { $0.name == name }?.text }

    /// The texts of the elements called `name`.
    func all(_ name: String) -> [String] { elements.filter { $0.name == name }.map(\.text) }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count - needle.count else { return nil }
        var j = start
        while j <= bytes.count - needle.count {
            if bytes[j] == needle[0], bytes[j..<(j + needle.count)].elementsEqual(needle) { return j }
            j += 1
        }
        return nil
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#NN;` `&#xNN;`; anything else stays as written.
    static func decode(_ raw: [UInt8]) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            if raw[i] == UInt8(ascii: "&"),
                let semi = raw[i..<min(raw.count, i + 12)].firstIndex(of: UInt8(ascii: ";"))
            {
                let entity = String(decoding: raw[(i + 1)..<semi], as: UTF8.self)
                var scalar: Unicode.Scalar?
                switch entity {
                case "amp": scalar = "&"
                case "lt": scalar = "<"
                case "gt": scalar = ">"
                case "quot": scalar = "\""
                case "apos": scalar = "'"
                default:
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                        scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                    } else if entity.hasPrefix("#") {
                        scalar = UInt32(entity.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                    }
                }
                if let scalar {
                    out += Array(String(Character(scalar)).utf8)
                    i = semi + 1
                    continue
                }
            }
            out.append(raw[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// One page of a ListObjectsV2 reply (asked for with encoding-type=url): its objects, in
/// the reply's order, and the token of the next page.
public struct S3ListPage: Sendable, Equatable {
    public let objects: [S3Object]
    /// nil on the last page.
    public let nextToken: String?
    /// Keys and common prefixes the page lists, whatever became of them.
    public let entries: Int

    /// `shown` names the listing in errors.
    public init(reply: [UInt8], bucket: String, shown: String) throws(S3Error) {
        let xml = S3XML(reply)
        // A page cut short would be a silent half of the listing: its IsTruncated is last.
        guard !xml.cut else {
            throw .badReply(
                location: shown,
                reason: "a listing page of over \(S3XML.maxElements) XML elements (or nested over 64 deep), "
                    + "more than a page of 1000 keys ever holds")
        }
        guard xml.elements.contains(where: { $0.name == "IsTruncated" || $0.name == "KeyCount" || $0.name == "Name" })
        else {
            throw .badReply(location: shown, reason: "a listing with no ListBucketResult")
        }
        entries = xml.elements.filter { $0.depth == 2 && ($0.name == "Key" || $0.name == "Prefix") }.count
        // Key and Size of one Contents share its start (`parent`).
        var keys: [Int: String] = [:], sizes: [Int: Int64] = [:]
        for element in xml.elements where element.depth == 2 {
            if element.name == "Key" { keys[element.parent] = S3Location.decodeListed(element.text) }
            if element.name == "Size" { sizes[element.parent] = Int64(element.text) }
        }
        objects = keys.keys.sorted().compactMap { parent in
            guard let key = keys[parent], !key.isEmpty, key.utf8.count <= 1024, S3Location.problem(key: key) == nil
            else { return nil }
            return S3Object(location: S3Location(bucket: bucket, key: key), size: sizes[parent] ?? 0)
        }
        guard xml.first("IsTruncated") == "true" else {
            nextToken = nil
            return
        }
        guard let next = xml.first("NextContinuationToken"), !next.isEmpty, next.utf8.count <= 4096 else {
            throw .badReply(location: shown, reason: "a truncated listing with no continuation token")
        }
        nextToken = next
    }
}
