/// The one-line text field of the live scenes (where to save): typed characters go at
/// the end, Backspace deletes one, Ctrl-W a word, Ctrl-U everything; Enter answers, Esc
/// gives up.
struct LinePrompt: Equatable {
    let label: String
    var text: String

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
        switch key {
        case let .char(c): text.append(c)
        case .backspace: if !text.isEmpty { text.removeLast() }
        case .ctrl("u"): text = ""
        case .ctrl("w"):
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " ", last != "/" { text.removeLast() }
        case .enter: return .answered(text)
        case .escape, .ctrl("g"): return .cancelled
        // Named, not `default:`: a key added to Key must be placed here.
        case .up, .down, .left, .right, .home, .end, .pageUp, .pageDown, .delete, .tab, .ctrl, .alt, .unknown: break
        }
        return .editing
    }

    /// The prompt's line: the label, the text and a block for the cursor.
    func draw(into frame: inout ScreenFrame, row: Int) {
        let line = ForeignText.visible("\(label)\(text)")  // the suggested name may be a foreign one
        let shown = line.count < frame.columns ? line : "…" + String(line.suffix(frame.columns - 2))
        frame.put(shown + "█", row: row, style: .bold, width: frame.columns, neutralised: true)
    }
}
