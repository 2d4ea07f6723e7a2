import CatImageIO
import CatSupport

/// The one neutraliser: text that did not come from catctl itself (API fields, URLs,
/// headers, file names, metadata, and error messages that embed them) passes through
/// `visible` before any human view writes it, so it is shown as data and never acts on
/// the terminal. Controls become visible escapes the way GNU `ls -b` quotes names:
/// `\n`, `\t`, `\r`, `\a`, `\b`, `\f`, `\v`, other C0 and DEL as `\ooo` (ESC is `\033`),
/// a backslash as `\\`; C1 controls (U+0080–U+009F), the bidi controls that reorder what
/// follows (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069) and the line and
/// paragraph separators (U+2028, U+2029) as `\uXXXX`; a byte of a file name that is not
/// UTF-8 (see `FileNames`) as `\ooo`. The JSON views escape the same scalars their own way
/// (`JSONValue`).
public enum ForeignText {
    /// `text` with every scalar that could act on a terminal made visible.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            out.append(contentsOf: escape(scalar).unicodeScalars)
        }
        return String(out)
    }

    /// Whether `scalar` is shown escaped.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || scalar == "\\" || FileNames.rawByte(scalar) != nil
    }

    /// C0, DEL, C1, the bidi controls and the line/paragraph separators: what neither a
    /// terminal nor a JSON reader may get raw.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            return true
        default:
            return false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        if let byte = FileNames.rawByte(scalar) { return octal(byte) }
        switch scalar {
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\t": return "\\t"
        case "\r": return "\\r"
        case "\u{07}": return "\\a"
        case "\u{08}": return "\\b"
        case "\u{0C}": return "\\f"
        case "\u{0B}": return "\\v"
        default:
            if scalar.value <= 0x7F { return octal(UInt8(scalar.value)) }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    private static func octal(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 8)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
