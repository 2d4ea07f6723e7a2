extension String {
    /// printf's formatting of numbers, as `String(format:)` of full Foundation, which
    /// FoundationEssentials lacks: `String(printf: "%.1f MP", mp)`. For numbers only (no %@).
    public init(printf format: String, _ arguments: any CVarArg...) {
        self = withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 64)
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            guard needed >= buffer.count else { return String.text(buffer) }
            buffer = [CChar](repeating: 0, count: needed + 1)
            return withVaList(arguments) { again in
                _ = vsnprintf(&buffer, buffer.count, format, again)
                return String.text(buffer)
            }
        }
    }

    /// A C string's text, up to its NUL.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The words (split at spaces) in lines of at most `width` characters; a longer word
    /// stands alone on its line. For text laid out by hand: help tables, the filter table.
    public func wordWrapped(to width: Int) -> [String] {
        var lines: [String] = [], current = ""
        for word in split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        return lines + [current]
    }

    /// The text padded with spaces on the right to `width` characters (never cut).
    public func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

extension StringProtocol {
    /// The text without the white space (spaces, tabs, new lines...) at either end.
    public func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
