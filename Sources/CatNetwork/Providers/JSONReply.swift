import CatSupport

/// A server's JSON reply as Swift values: objects are `[String: Any]` (null members left
/// out), arrays `[Any]` (a null is `JSONReply.null`), strings `String`, whole numbers that
/// fit `Int`, other numbers `Double`, true and false `Bool`. Parsed by FoundationEssentials'
/// JSONDecoder, which bounds the nesting depth (JSONSerialization is not in Essentials).
struct JSONReply: Decodable {
    let value: Any
    static let null = Null()
    struct Null {}

    /// The reply's value; nil when the bytes are not JSON.
    static func parse(_ bytes: [UInt8]) -> Any? {
        (try? JSONDecoder().decode(JSONReply.self, from: Data(bytes)))?.value
    }

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var values: [Any] = []
            while !array.isAtEnd {
                if try array.decodeNil() {
                    values.append(Self.null)
                } else {
                    values.append(try array.decode(JSONReply.self).value)
                }
            }
            value = values
        } else if let object = try? decoder.container(keyedBy: Key.self) {
            var members: [String: Any] = [:]
            for key in object.allKeys where try !object.decodeNil(forKey: key) {
                members[key.stringValue] = try object.decode(JSONReply.self, forKey: key).value
            }
            value = members
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = Self.null
            } else if let flag = try? single.decode(Bool.self) {
                value = flag
            } else if let whole = try? single.decode(Int.self) {
                value = whole
            } else if let number = try? single.decode(Double.self) {
                value = number
            } else {
                value = try single.decode(String.self)
            }
        }
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}

extension String {
    /// The text as one URL path segment: RFC 3986's unreserved characters kept, every
    /// other UTF-8 byte percent-encoded.
    var percentEncodedPathSegment: String {
        var out = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
            }
        }
        return out
    }

}
