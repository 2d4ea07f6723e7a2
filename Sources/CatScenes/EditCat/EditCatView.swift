/// What the Edit Cat scene shows. Views implement this and hold no logic: they render
/// what they are told, in the order they are told (terminal, JSON lines, tests).
@MainActor
public protocol EditCatView: AnyObject {
    func updateProcessingState(_ state: EditCatState)
    /// Step-by-step progress; sent only for images large enough to be worth it.
    func updateProgress(_ progress: EditCatProgress)
    /// The decoded input.
    func showImageInfo(_ info: EditCatImageInfo)
    func showSaved(_ result: EditCatResult)
    func showError(_ failure: SceneFailure)
}

public enum EditCatState: Equatable, Sendable {
    case processing
    case done
    case failed
}

public struct EditCatProgress: Equatable, Sendable {
    public let step: Int
    public let totalSteps: Int
    /// "filtering 12.2 MP", "encoding out.png".
    public let label: String

    public init(step: Int, totalSteps: Int, label: String) {
        self.step = step
        self.totalSteps = totalSteps
        self.label = label
    }
}

public struct EditCatImageInfo: Equatable, Sendable {
    public let input: String
    /// "jpeg" or "png".
    public let format: String
    public let width: Int
    public let height: Int

    public init(input: String, format: String, width: Int, height: Int) {
        self.input = input
        self.format = format
        self.width = width
        self.height = height
    }
}

public struct EditCatResult: Equatable, Sendable {
    public let input: String
    public let output: String
    public let width: Int
    public let height: Int
    public let filters: [String]
    public let milliseconds: Int

    public init(input: String, output: String, width: Int, height: Int, filters: [String], milliseconds: Int) {
        self.input = input
        self.output = output
        self.width = width
        self.height = height
        self.filters = filters
        self.milliseconds = milliseconds
    }
}
