import CatScenes

/// What a live view needs from the app that hosts it: the screen's size and graphics, a
/// way to write a frame, to run the presenter's work in key order, and to move between
/// scenes. `LiveApp` is the real one; tests pass a fake (keys in, frames out).
@MainActor
protocol LiveHost: AnyObject {
    /// The screen in cells, and a cell's size in pixels when the terminal said.
    var columns: Int { get }
    var rows: Int { get }
    var cell: (width: Int, height: Int)? { get }
    var graphics: TerminalGraphics { get }
    var wording: FailureWording { get }
    /// The scene on top has another under it (Esc goes back to it).
    var canGoBack: Bool { get }
    /// Whether `scene` is on screen (a scene under another draws nothing).
    func isOnTop(_ scene: any LiveScene) -> Bool
    /// Shows a whole frame.
    func write(_ frame: String)
    /// Runs a presenter input for a key, in the order keys came.
    func perform(_ input: @escaping @MainActor () async -> Void)
    func push(_ scene: any LiveScene)
    /// Back to the scene below, redrawn.
    func goBack()
    /// Ends the app with `status` after this key.
    func quit(_ status: ExitStatus)
}
