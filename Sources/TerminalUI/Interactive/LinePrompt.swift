/// The one-line text field of the live scenes (where to save, a caption): a cursor that
/// Left and Right, Home and End (Ctrl-A, Ctrl-E) move; typed characters go in at it,
/// Backspace deletes the one before it, Delete the one under it, Ctrl-W the word before
/// it, Ctrl-U everything; Enter answers, Esc gives up. Text is kept as typed (any script);
/// it is neutralised when drawn.
struct LinePrompt: Equatable {
    /// What the answer is for: the screen sends it to its presenter accordingly.
    enum Purpose: Equatable { case save, caption }

    let label: String
    private(set) var text: String
    /// Where the next character goes, in characters from the start.
    private(set) var cursor: Int
    /// The most Unicode scalars the text may hold (a caption's 1000), or nil.
    let limit: Int?
    let purpose: Purpose

    init(label: String, text: String = "", limit: Int? = nil, purpose: Purpose = .save) {
        self.label = label
        self.text = text
        cursor = text.count
        self.limit = limit
        self.purpose = purpose
    }

    enum Outcome: Equatable {
        case editing
        case answered(String)
        case cancelled
    }

    /// Sends `key` to the open prompt, if one is open: true when it took the key. The prompt
    /// closes on Enter (`answer` hears the text) and on Esc.
    static func take(_ key: Key, into prompt: inout LinePrompt?, answer: (String) -> Void) -> Bool {
        guard var open = prompt else { return false }
        switch open.handle(key) {
        case .editing: prompt = open
        case .cancelled: prompt = nil
        case let .answered(text):
            prompt = nil
            answer(text)
        }
        return true
    }

    mutating func handle(_ key: Key) -> Outcome {
        var characters = Array(text)
        switch key {
        case let .char(c):
            if let limit, text.unicodeScalars.count + c.unicodeScalars.count > limit { break }
            characters.insert(c, at: cursor)
            cursor += 1
        case .backspace:
            if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete: if cursor < characters.count { characters.remove(at: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home, .ctrl("a"): cursor = 0
        case .end, .ctrl("e"): cursor = characters.count
        case .ctrl("u"):
            characters = []
            cursor = 0
        case .ctrl("w"):
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " ", characters[start - 1] != "/" { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .enter: return .answered(text)
        case .escape, .ctrl("g"): return .cancelled
        // Named, not `default:`: a key added to Key must be placed here.
        case .up, .down, .pageUp, .pageDown, .tab, .ctrl, .alt, .mouse, .unknown: break
        }
        // Keys come a scalar at a time: a combining mark or a variation selector joins the
        // character before it once the text is a string again, so the cursor is counted anew.
        cursor = String(characters[..<min(cursor, characters.count)]).count
        text = String(characters)
        cursor = min(cursor, text.count)
        return .editing
    }

    /// Pasted text goes in at the cursor, whole: control characters and line breaks are
    /// spaces, and what passes the limit is left out.
    mutating func paste(_ pasted: String) {
        var characters = Array(text)
        var scalars = text.unicodeScalars.count
        var added: [Character] = []
        for c in pasted {
            let clean: Character = c.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? " " : c
            if let limit, scalars + clean.unicodeScalars.count > limit { break }
            scalars += clean.unicodeScalars.count
            added.append(clean)
        }
        characters.insert(contentsOf: added, at: min(cursor, characters.count))
        cursor = String(characters[..<min(cursor + added.count, characters.count)]).count
        text = String(characters)
        cursor = min(cursor, text.count)
    }

    /// The prompt's line: the label and the text, neutralised (a suggested name may be a
    /// foreign one, a caption is whatever was typed), the character under the cursor in
    /// reverse video; cut from the left when the cursor would be off the screen.
    func draw(into frame: inout ScreenFrame, row: Int) {
        let characters = Array(text), cursor = min(self.cursor, characters.count)
        let before = ForeignText.visible(label + String(characters[..<cursor]))
        let under = cursor < characters.count ? ForeignText.visible(String(characters[cursor])) : "█"
        let after = cursor < characters.count ? ForeignText.visible(String(characters[(cursor + 1)...])) : ""
        let room = max(2, frame.columns - CellWidth.of(under))
        let shown = CellWidth.of(before) < room ? before : "…" + CellWidth.suffix(before, fitting: room - 1)
        guard cursor < characters.count else {
            return frame.put(shown + under, row: row, style: .bold, width: frame.columns, neutralised: true)
        }
        frame.put(shown, row: row, style: .bold, width: frame.columns, neutralised: true)
        let column = CellWidth.of(shown) + 1
        frame.put(under, row: row, column: column, style: .reverse, neutralised: true)
        frame.put(after, row: row, column: column + CellWidth.of(under), style: .bold, neutralised: true)
    }
}
