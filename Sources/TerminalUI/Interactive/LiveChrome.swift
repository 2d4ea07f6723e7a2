/// What every live screen has, drawn one way for both scenes: the title bar (the first
/// row), the status line (the row above the last), the last row (the save prompt while it
/// is open, else the key map's footer), and the `?` screen listing the key map.
enum LiveChrome {
    /// A line for the status row, and how it looks.
    struct Message: Equatable {
        let text: String
        let style: ScreenFrame.Style
    }

    /// The title bar: `title` on the left, `right` against the right edge.
    static func title(_ title: String, right: String, into frame: inout ScreenFrame) {
        frame.bar(" \(title)", right: right.isEmpty ? "" : "\(right) ", row: 1)
    }

    /// The status line, the whole row (so a partial frame draws over the one before).
    static func status(_ message: Message, into frame: inout ScreenFrame) {
        frame.put(message.text, row: frame.rows - 1, style: message.style, width: frame.columns)
    }

    /// The last row: the prompt when one is open, else the footer.
    static func footer<Action>(_ keys: KeyMap<Action>, prompt: LinePrompt?, into frame: inout ScreenFrame) {
        if let prompt {
            prompt.draw(into: &frame, row: frame.rows)
        } else {
            frame.put(keys.footer, row: frame.rows, style: .dim)
        }
    }

    /// The `?` screen: every key of a scene, one per line.
    static func help<Action>(_ title: String, keys: KeyMap<Action>, into frame: inout ScreenFrame) {
        frame.bar(" \(title) — keys", right: "any key: back ", row: 1)
        let rows = keys.helpRows
        let width = (rows.map(\.keys.count).max() ?? 0) + 3
        for (i, row) in rows.enumerated() {
            frame.put(row.keys, row: 3 + i, column: 3, style: .bold)
            frame.put(row.help, row: 3 + i, column: 3 + width)
        }
    }
}
