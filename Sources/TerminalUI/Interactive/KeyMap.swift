/// One key binding of a live scene: the keys, what the `?` screen and the docs call them,
/// the footer's short form, and the scene's action. Each scene declares its bindings once,
/// in its key map; the key handler, the footer, the `?` screen and the docs' tables (a
/// test compares them) all read that one list. After bubbles' `key.Binding`.
struct KeyBinding<Action: Equatable>: Equatable {
    let keys: [Key]
    /// The keys as the `?` screen names them: "← → or h l".
    let label: String
    /// The keys as the docs' tables name them, every key included ("q or Ctrl-D").
    let docsLabel: String
    /// What the binding does, for the `?` screen and the docs.
    let help: String
    /// Its part of the footer ("s save"); nil: not on the footer.
    let footer: String?
    let action: Action
    /// On the `?` screen (Ctrl-C, the way out from anywhere, is only in the docs).
    let listed: Bool
    /// Taken before anything else, the save prompt and the `?` screen included.
    let anywhere: Bool

    init(
        _ keys: [Key], _ label: String, _ help: String, footer: String? = nil, action: Action, listed: Bool = true,
        anywhere: Bool = false, docs docsLabel: String? = nil
    ) {
        self.keys = keys
        self.label = label
        self.docsLabel = docsLabel ?? label
        self.help = help
        self.footer = footer
        self.action = action
        self.listed = listed
        self.anywhere = anywhere
    }
}

/// A scene's bindings, in the order the `?` screen and the footer show them.
struct KeyMap<Action: Equatable>: Equatable {
    let bindings: [KeyBinding<Action>]

    init(_ bindings: [KeyBinding<Action>]) { self.bindings = bindings }

    /// The binding `key` triggers, if any.
    func binding(for key: Key) -> KeyBinding<Action>? { bindings.first { $0.keys.contains(key) } }

    /// Where a key goes on a live screen, the same in every scene.
    enum Route {
        /// A binding taken from anywhere (Ctrl-C), the prompt and the `?` screen included.
        case anywhere(Action)
        /// The open save prompt took it (`answer` has heard the text if it was Enter).
        case prompt
        /// The `?` screen was open: any key closes it, and does nothing else.
        case closeHelp
        /// The screen's own binding, if the key has one.
        case binding(Action?)
    }

    func route(_ key: Key, prompt: inout LinePrompt?, helpShown: Bool, answer: (String) -> Void) -> Route {
        let binding = binding(for: key)
        if let binding, binding.anywhere { return .anywhere(binding.action) }
        if LinePrompt.take(key, into: &prompt, answer: answer) { return .prompt }
        if helpShown { return .closeHelp }
        return .binding(binding?.action)
    }

    /// The footer: each binding's short form, two spaces apart.
    var footer: String { bindings.compactMap(\.footer).joined(separator: "  ") }

    /// The action whose short form `mouse` pressed (the left button, on the footer: the
    /// last of `rows`), if any.
    func footerAction(for mouse: MouseEvent, rows: Int) -> Action? {
        guard mouse.action == .press, mouse.button == 0, mouse.row == rows else { return nil }
        let column = mouse.column
        var start = 1
        for binding in bindings {
            guard let footer = binding.footer else { continue }
            if (start..<start + footer.count).contains(column) { return binding.action }
            start += footer.count + 2
        }
        return nil
    }

    /// The `?` screen's rows: keys and meaning; bindings that share a row (← and →) once.
    var helpRows: [(keys: String, help: String)] { rows(bindings.filter(\.listed), label: \.label) }

    /// The docs' table of this map, every binding in it (scripts/make-docs writes it into
    /// README.md, docs/live.md and docs/CLI.md; a test checks they are current).
    var markdownTable: String {
        "| key | what it does |\n| --- | --- |\n"
            + rows(bindings, label: \.docsLabel).map { "| \($0.keys) | \($0.help) |\n" }.joined()
    }

    private func rows(_ bindings: [KeyBinding<Action>], label: KeyPath<KeyBinding<Action>, String>)
        -> [(keys: String, help: String)]
    {
        var rows: [(keys: String, help: String)] = []
        for binding in bindings where rows.last.map({ $0 != (binding[keyPath: label], binding.help) }) ?? true {
            rows.append((binding[keyPath: label], binding.help))
        }
        return rows
    }
}

/// The live scenes' key tables as the docs hold them (`catctl docs-tables`).
@MainActor
public enum LiveKeyTables {
    /// Edit Cat's (reached from Load Cat, so Esc goes back) and Load Cat's.
    public static var edit: String { EditCatLiveScreen.keys(back: true).markdownTable }
    public static var load: String { LoadCatLiveScreen.keys.markdownTable }
}
