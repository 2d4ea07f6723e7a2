import CatSupport

/// Help that fits the terminal it is read in. The argument parser wraps every line of a
/// discussion at the screen's width with no indent, which breaks a table's row or an
/// example in the middle; so tables and examples are laid out here for that width (the
/// parser's: COLUMNS, else the terminal's, else 80), and only prose is left to it.
enum HelpLayout {
    /// The width the argument parser wraps help to.
    static let width: Int = {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }()

    /// The longest line the parser leaves whole (it breaks a line as long as the screen).
    static var limit: Int { max(30, width - 2) }

    /// Rows of a term and its description: the terms in a column, each description
    /// wrapped beside them with a hanging indent; where the column would leave the
    /// descriptions too little room, each goes under its term instead.
    static func table(_ rows: [(term: String, text: String)], indent: Int = 2) -> String {
        let column = (rows.map(\.term.count).max() ?? 0) + indent + 2
        let room = limit - column
        if room >= 24 {
            return rows.map { row in
                let lead = String(repeating: " ", count: indent) + row.term.padded(to: column - indent)
                return row.text.wordWrapped(to: room).enumerated().map { index, line in
                    (index == 0 ? lead : String(repeating: " ", count: column)) + line
                }.joined(separator: "\n")
            }.joined(separator: "\n")
        }
        return rows.map { row in
            String(repeating: " ", count: indent) + row.term + "\n"
                + row.text.wordWrapped(to: limit - indent - 4).map { String(repeating: " ", count: indent + 4) + $0 }
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Command lines, each with an optional comment: the comment beside the command when
    /// both fit, else on a line of its own above it; a command longer than the line goes on
    /// over continuation lines (` \`), as a shell takes it.
    static func examples(_ lines: [(command: String, comment: String?)], indent: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        return lines.map { line in
            var out: [String] = []
            let together = line.comment.map { pad + line.command + "   # " + $0 }
            if let together, together.count <= limit { return together }
            if let comment = line.comment {
                out += ("# " + comment).wordWrapped(to: limit - indent).map { pad + $0 }
            }
            // Break at spaces, keeping room for the " \" that continues a line.
            var current = pad, empty = true
            for word in line.command.split(separator: " ", omittingEmptySubsequences: true) {
                let candidate = empty ? current + word : current + " " + word
                if candidate.count + 2 > limit, !empty {
                    out.append(current + " \\")
                    current = pad + "    " + word
                } else {
                    current = candidate
                }
                empty = false
            }
            out.append(current)
            return out.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
