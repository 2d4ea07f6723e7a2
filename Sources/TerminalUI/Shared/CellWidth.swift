/// How many terminal cells text takes: 2 for East Asian wide and fullwidth characters and
/// emoji shown as emoji, 0 for combining marks and format characters, else 1 (after
/// Unicode's East Asian Width, UAX #11, by its main ranges: no library here has it, and
/// glibc's `wcwidth` answers only under a UTF-8 locale). A row cut or padded by this does not
/// wrap onto the next row and scroll the screen when it holds 猫 or 🐈.
enum CellWidth {
    static func of(_ character: Character) -> Int {
        if character.unicodeScalars.contains("\u{FE0F}") { return 2 }  // shown as an emoji
        var width = 0
        for scalar in character.unicodeScalars {
            width = max(width, of(scalar))
        }
        return width
    }

    static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default: return 1
        }
    }

    /// The longest start of `text` that fits `cells`.
    static func prefix(_ text: String, fitting cells: Int) -> String {
        var used = 0, end = text.startIndex
        for index in text.indices {
            let w = of(text[index])
            if used + w > cells { break }
            used += w
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// The longest end of `text` that fits `cells`.
    static func suffix(_ text: String, fitting cells: Int) -> String {
        var used = 0, start = text.endIndex
        for index in text.indices.reversed() {
            let w = of(text[index])
            if used + w > cells { break }
            used += w
            start = index
        }
        return String(text[start...])
    }
}
