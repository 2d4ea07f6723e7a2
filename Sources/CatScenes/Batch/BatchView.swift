/// What the Batch scene shows. Views implement this and hold no logic; the events a
/// view may ignore have empty defaults.
@MainActor
public protocol BatchView: AnyObject {
    /// The inputs are known: how many files this run (this shard) will process.
    func showPlan(_ plan: BatchPlan)
    func updateProgress(_ progress: BatchProgress)
    /// One file finished: written, failed, or skipped (its output existed: --skip-existing).
    func showFileResult(_ result: BatchFileResult)
    /// The end: the last thing a script sees.
    func showSummary(_ summary: BatchSummary)
    /// The batch could not run at all (usage, output folder).
    func showError(_ failure: SceneFailure)
    /// `--list`: the inputs, and those left out (a control character in the path); called
    /// once for each thousand or so.
    func showListing(_ inputs: [String], leftOut: [String])
    /// Something the user should know that is no failure (a key listed outside its prefix,
    /// paths given twice).
    func showNote(_ note: String)
}

extension BatchView {
    public func showPlan(_ plan: BatchPlan) {}
    public func updateProgress(_ progress: BatchProgress) {}
}

public struct BatchPlan: Equatable, Sendable {
    /// Files this run will process.
    public let files: Int
    /// Inputs left to other shards.
    public let otherShards: Int
    /// Inputs whose output exists already (--skip-existing).
    public let existing: Int
    public init(files: Int, otherShards: Int, existing: Int = 0) {
        self.files = files
        self.otherShards = otherShards
        self.existing = existing
    }
}

public struct BatchProgress: Equatable, Sendable {
    public let done: Int
    public let total: Int
    public let megapixelsPerSecond: Double
    /// Seconds left at this pace; nil until a file is done.
    public let remainingSeconds: Double?
    public init(done: Int, total: Int, megapixelsPerSecond: Double, remainingSeconds: Double?) {
        self.done = done
        self.total = total
        self.megapixelsPerSecond = megapixelsPerSecond
        self.remainingSeconds = remainingSeconds
    }
}

public struct BatchFileResult: Equatable, Sendable {
    public let input: String
    public let output: String
    public let error: String?
    public let milliseconds: Int
    /// Not processed: the output existed already (--skip-existing).
    public let skipped: Bool
    public var ok: Bool { error == nil }
    public init(input: String, output: String, error: String?, milliseconds: Int, skipped: Bool = false) {
        self.input = input
        self.output = output
        self.error = error
        self.milliseconds = milliseconds
        self.skipped = skipped
    }
}

public struct BatchSummary: Equatable, Sendable {
    public let ok: Int
    public let failed: Int
    /// Outputs that existed already (--skip-existing).
    public let skipped: Int
    public let seconds: Double
    public let interrupted: Bool
    /// Files of this run never started: the run stopped (interrupted, or `stoppedBy`).
    public let notStarted: Int
    /// The failure that made the run start no more files: 75 (network or storage) or 77
    /// (credentials).
    public let stoppedBy: ExitStatus?
    public init(
        ok: Int, failed: Int, skipped: Int = 0, seconds: Double, interrupted: Bool, notStarted: Int = 0,
        stoppedBy: ExitStatus? = nil
    ) {
        self.ok = ok
        self.failed = failed
        self.skipped = skipped
        self.seconds = seconds
        self.interrupted = interrupted
        self.notStarted = notStarted
        self.stoppedBy = stoppedBy
    }
}
