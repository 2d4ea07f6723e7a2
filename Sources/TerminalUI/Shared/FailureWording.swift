import CatScenes

/// How failures read: the scene's sentence, the command line's hint for it, and the
/// `catctl: error:` line every human view writes on stderr.
public struct FailureWording: Sendable {
    /// What the command line says about each remedy ("raise it with --max-pixels ...").
    public let hints: [FailureHint: String]

    public init(hints: [FailureHint: String] = [:]) { self.hints = hints }

    /// "cannot decode x.jpg: ... MP (raise it with --max-pixels or CATCTL_MAX_PIXELS)".
    public func message(_ failure: SceneFailure) -> String {
        guard let hint = failure.hint.flatMap({ hints[$0] }) else { return failure.message }
        return "\(failure.message) (\(hint))"
    }

    /// The stderr line for a failure; an interruption gets no "error:" label.
    public func errorLine(_ failure: SceneFailure, color: Bool) -> String {
        failure.status == .interrupted
            ? "catctl: \(ForeignText.visible(message(failure)))\n" : Self.errorLine(message(failure), color: color)
    }

    /// `catctl: error: MESSAGE`, the label red when colours are allowed; the message
    /// (which may quote file names, URLs and server text) neutralised.
    public static func errorLine(_ message: String, color: Bool) -> String {
        "catctl: \(color ? ANSI.red("error:") : "error:") \(ForeignText.visible(message))\n"
    }
}
