import CatScenes

/// Picks every command's views, in one place: JSON lines with `--json`, the terminal
/// views when a person is watching, plain lines for scripts.
@MainActor
public struct ViewFactory {
    public let console: Console
    public let json: Bool
    public let wording: FailureWording

    public init(console: Console, json: Bool, wording: FailureWording = FailureWording()) {
        self.console = console
        self.json = json
        self.wording = wording
    }

    /// Whether pictures may be drawn on stdout: a terminal (or a `--graphics` mode asked
    /// for by name), not `--graphics none`, no JSON, and stdout is not where the image
    /// itself goes (`-`).
    public func picturesAllowed(output: String?) -> Bool {
        !json && (console.stdoutIsTerminal || console.graphics.forced) && console.graphics.kind != .none
            && output != "-"
    }

    public func editCat() -> any EditCatView {
        json
            ? EditCatJSONView(console: console, wording: wording)
            : EditCatTerminalView(console: console, wording: wording)
    }

    /// The Load Cat view and the Edit Cat view it hands over to (`load --filter`).
    public func loadCat(output: String?) -> (load: any LoadCatView, edit: any EditCatView) {
        if json { return (LoadCatJSONView(console: console, wording: wording), editCat()) }
        let load: any LoadCatView =
            picturesAllowed(output: output)
            ? LoadCatTerminalView(console: console, wording: wording)
            : LoadCatPlainView(console: console, wording: wording)
        return (load, editCat())
    }

    public func detectCat() -> any DetectCatView {
        json
            ? DetectCatJSONView(console: console, wording: wording)
            : DetectCatTerminalView(console: console, wording: wording)
    }

    public func batch() -> any BatchView {
        json ? BatchJSONView(console: console, wording: wording) : BatchTerminalView(console: console, wording: wording)
    }
}
