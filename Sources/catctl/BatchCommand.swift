import ArgumentParser
import CatImageIO
import CatScenes
import CatSupport
import TerminalUI

struct Batch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply filters to many files: DIR/<name> for every input.",
        usage: "catctl batch --filter <spec> --output-dir <dir>\n    [<options>] <inputs> ...",
        discussion: """
            INPUT: files, folders (the images directly inside; at any depth with --recursive, \
            the tree mirrored under DIR) or - (paths on stdin, one per line). Outputs are \
            DIR/<input name> with the extension of --format (same keeps the input's). A name \
            depends only on the input's path: inputs that would meet at one name (or at another \
            input) are told apart as x-png.jpg, or x-png-3fa2c1.jpg (a hash of the path), so \
            shards always agree and no input is overwritten. A bad file is reported and skipped; \
            the exit status is 65 when any failed. --shard K/N processes a fixed 1/N of the \
            inputs (by a hash of each path), so N machines can share a batch; --skip-existing \
            resumes one.

            Examples:
            \(HelpLayout.examples([
                ("catctl batch --filter sepia --output-dir out/ photos/", nil),
                ("find . -name '*.jpg' | catctl batch --filter mono --output-dir bw/ --format png -", nil),
                ("catctl batch --filter fade --output-dir out/ --shard 2/4 photos/", nil),
                ("catctl batch --filter sepia --recursive --skip-existing --output-dir out/ photos/", nil),
            ]))
            """)

    @Option(name: .customLong("filter"), help: ArgumentHelp("A filter spec; repeat to chain.", valueName: "spec"))
    var filters: [String] = []

    @Option(
        name: .customLong("output-dir"),
        help: ArgumentHelp(
            "Where the outputs go: a folder (created if missing) or s3://bucket/prefix/.", valueName: "dir"))
    var outputDirectory: String?

    @Option(help: ArgumentHelp("The outputs' format; same keeps each input's.", valueName: "format"))
    var format: BatchFormat = .same

    @Option(
        help: "Files in flight at once (default: the CPUs this process may use: the cores, or its cgroup's CPU limit).")
    var jobs: Int?

    @OptionGroup var encoding: EncodingOptions

    @Option(
        help: ArgumentHelp(
            "Process only shard K of N (1-based); auto/N takes K from an array job's index "
                + "(JOB_COMPLETION_INDEX+1, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX+1, CLOUD_RUN_TASK_INDEX+1).",
            valueName: "K/N|auto/N"))
    var shard: ShardOption?

    @Flag(help: "Take the images in folders at any depth and mirror the folder tree under --output-dir.")
    var recursive = false

    @Flag(name: .customLong("skip-existing"), help: "Skip inputs whose output exists already (resume a batch).")
    var skipExisting = false

    @OptionGroup var limits: LimitOptions

    @Flag(help: "JSON lines on stdout: one per file, then a summary.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Also take the paths in FILE (or an s3:// object), one a line (a list made once, e.g. by --list, so that "
                + "many shards do not each walk the tree or list the bucket).",
            valueName: "file"))
    var manifest: String?

    @Flag(
        help: "Write the inputs (this shard's), one a line, and process none: a manifest for --manifest.")
    var list = false

    @Option(
        name: .customLong("max-inputs"),
        help: ArgumentHelp(
            "Refuse the run (64) past this many inputs: files, folder entries, listed objects and the lines of stdin "
                + "and --manifest together, each path once (identical lines are one input). At most "
                + "\(BatchInputs.maxLimit).",
            valueName: "n"))
    var maxInputs = BatchInputs.defaultLimit

    @Flag(
        name: .customLong("allow-special-files"),
        help: "Read FIFOs and devices named as inputs (within the 512 MiB file limit); else each fails at once, unread."
    )
    var allowSpecialFiles = false

    @Flag(
        name: .customLong("require-cat"),
        help:
            "A file where a cat filter (cutout, sticker, portrait) finds no cat fails (65); else it is written as it is, with a note."
    )
    var requireCat = false

    @Argument(help: "Files, folders, s3://bucket/key or s3://bucket/prefix/, or - for paths on standard input.")
    var inputs: [String] = []

    func validate() throws {
        if !list, outputDirectory == nil { throw ValidationError("give --output-dir (or --list)") }
        if !list, filters.isEmpty { throw ValidationError("give at least one --filter (see `catctl filters`)") }
        if inputs.isEmpty && manifest == nil { throw ValidationError("give at least one INPUT, or --manifest FILE") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        guard (1...BatchInputs.maxLimit).contains(maxInputs) else {
            throw ValidationError("--max-inputs must be 1-\(BatchInputs.maxLimit)")
        }
        _ = try shard?.resolved()
    }

    func run() async throws {
        let cores = CPUs.available
        let jobs = self.jobs ?? cores
        var request = BatchRequest(
            inputs: inputs, outputDirectory: outputDirectory ?? "", filters: filters, format: format.format,
            jobs: jobs, encoding: encoding.settings,
            maxPixels: try limits.maxPixels(), maxFrames: limits.maxFrames, shard: try shard?.resolved(),
            recursive: recursive,
            skipExisting: skipExisting, manifest: manifest, listOnly: list, maxInputs: maxInputs,
            allowSpecialFiles: allowSpecialFiles)
        request.requireCat = requireCat
        let json = self.json
        let presenter = await MainActor.run {
            let views = ViewFactory(console: Console.standard(), json: json, wording: .commandLine())
            let presenter = Router.makeBatch(
                view: views.batch(), interactor: BatchInteractor(threads: max(1, cores / jobs)))
            Interrupts.onInterrupt = { presenter.cancel() }
            return presenter
        }
        try await presenter.run(request).finish()
    }
}
