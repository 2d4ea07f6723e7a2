import CatImageIO

/// What the user asked the Batch scene to do, checked by the command line already.
public struct BatchRequest: Sendable, Equatable {
    /// Files, folders (their images) or "-" (paths on standard input).
    public var inputs: [String]
    /// A file of input paths, one a line (`--manifest`), read after `inputs`.
    public var manifest: String?
    public var outputDirectory: String
    public var filters: [String]
    /// The outputs' format; nil keeps each input's.
    public var format: ImageFormat?
    /// Files in flight at once (at least 1).
    public var jobs: Int
    public var encoding: EncodeSettings
    public var maxPixels: Int
    /// Animations with more frames are refused.
    public var maxFrames: Int
    /// Process only the inputs of this shard.
    public var shard: Shard?
    /// Folders are walked at any depth; their tree is mirrored under the output folder.
    public var recursive: Bool
    /// Inputs whose output exists already are skipped (resuming an interrupted batch).
    public var skipExisting: Bool
    /// List the inputs (a manifest) and process none (`--list`).
    public var listOnly = false
    /// Inputs at most, however they come (`--max-inputs`; `BatchInputs.defaultLimit`).
    public var maxInputs = BatchInputs.defaultLimit
    /// FIFOs and devices named as inputs are read (`--allow-special-files`), within the
    /// file size limit; else each is refused at once (66).
    public var allowSpecialFiles = false
    /// `--require-cat`: a file where a cat filter finds no cat fails (65), the rest go on.
    public var requireCat = false

    public init(
        inputs: [String], outputDirectory: String, filters: [String], format: ImageFormat? = nil, jobs: Int = 2,
        encoding: EncodeSettings = [:], maxPixels: Int = DecodeOptions.defaultMaxPixels,
        maxFrames: Int = DecodeOptions.defaultMaxFrames,
        shard: Shard? = nil, recursive: Bool = false,
        skipExisting: Bool = false, manifest: String? = nil, listOnly: Bool = false,
        maxInputs: Int = BatchInputs.defaultLimit, allowSpecialFiles: Bool = false
    ) {
        self.maxInputs = maxInputs
        self.allowSpecialFiles = allowSpecialFiles
        self.listOnly = listOnly
        self.inputs = inputs
        self.manifest = manifest
        self.outputDirectory = outputDirectory
        self.filters = filters
        self.format = format
        self.jobs = jobs
        self.encoding = encoding
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.shard = shard
        self.recursive = recursive
        self.skipExisting = skipExisting
    }
}

/// Shard `index` (1-based) of `count`: the inputs whose path hashes to it.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// nil unless 1 ≤ index ≤ count.
    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`, as on the command line.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The variables array-job engines hand each task its index in, and what to add to make
    /// it 1-based: Kubernetes Indexed Jobs, Slurm job arrays (`--array=1-N`), AWS Batch
    /// array jobs, Cloud Run jobs. The first one set is taken.
    public static let arrayIndexVariables: [(name: String, offset: Int)] = [
        ("JOB_COMPLETION_INDEX", 1), ("SLURM_ARRAY_TASK_ID", 0), ("AWS_BATCH_JOB_ARRAY_INDEX", 1),
        ("CLOUD_RUN_TASK_INDEX", 1),
    ]

    /// `--shard auto/N`: this task's shard of `count`, from the first array-job variable
    /// set in `environment`; or why there is none (a usage error). N stays the caller's:
    /// Slurm's own count is 1 when a single task is resubmitted.
    public static func fromArrayJob(count: Int, environment: [String: String]) -> Result<Shard, SceneFailure> {
        guard let (name, offset) = arrayIndexVariables.first(where: { environment[$0.name] != nil }) else {
            let names = arrayIndexVariables.map { $0.offset == 0 ? $0.name : "\($0.name)+\($0.offset)" }
            return .failure(
                SceneFailure(
                    status: .usage,
                    message: "--shard auto/\(count) takes this task's index from \(names.joined(separator: ", ")), "
                        + "and none of them is set: give --shard K/\(count), or run it as an array job"))
        }
        let text = environment[name] ?? ""
        guard text.count <= 9, text.allSatisfy(\.isASCII), let value = Int(text) else {
            return .failure(SceneFailure(status: .usage, message: "\(name) is not a task index"))
        }
        guard let shard = Shard(index: value + offset, count: count) else {
            return .failure(
                SceneFailure(
                    status: .usage,
                    message: "\(name)=\(value) makes shard \(value + offset) of \(count): it must be 1-\(count)"))
        }
        return .success(shard)
    }

    /// Whether `input` is this shard's to process.
    public func contains(_ input: String) -> Bool { BatchPlanning.shard(of: input, count: count) == index - 1 }

    /// Whether the input with these path bytes is this shard's to process.
    public func contains<C: Collection<UInt8>>(bytes path: C) -> Bool {
        BatchPlanning.shard(ofBytes: path, count: count) == index - 1
    }
}
