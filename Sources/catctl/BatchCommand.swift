import ArgumentParser
import CatScenes
import Foundation
import ImageIO
import TerminalUI

struct Batch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply filters to many files: DIR/<name> for every input.",
        discussion: """
            INPUT: files, folders (the JPEG/PNG files directly inside) or - (paths on stdin, one \
            per line). Outputs are DIR/<input name> with the extension of --format (same keeps \
            the input's); a name taken twice gets -2, -3, ... A bad file is reported and skipped; \
            the exit status is 65 when any failed. --shard K/N processes a fixed 1/N of the \
            inputs (by a hash of each path), so N machines can share a batch.

            Examples:
              catctl batch --filter sepia --output-dir out/ photos/
              find . -name '*.jpg' | catctl batch --filter mono --output-dir bw/ --format png -
              catctl batch --filter fade --output-dir out/ --shard 2/4 photos/
            """)

    @Option(name: .customLong("filter"), help: ArgumentHelp("A filter spec; repeat to chain.", valueName: "spec"))
    var filters: [String] = []

    @Option(name: .customLong("output-dir"), help: "Where the outputs go (created if missing).")
    var outputDirectory: String

    @Option(help: ArgumentHelp("same, jpg or png.", valueName: "same|jpg|png"))
    var format = "same"

    @Option(help: "Files in flight at once (default: cores).")
    var jobs: Int?

    @OptionGroup var encoding: EncodingOptions

    @Option(help: ArgumentHelp("Process only shard K of N (1-based).", valueName: "K/N"))
    var shard: String?

    @Option(name: .customLong("max-pixels"), help: "Refuse images with more pixels than this (default 100000000).")
    var maxPixels: Int?

    @Flag(help: "JSON lines on stdout: one per file, then a summary.")
    var json = false

    @Argument(help: "Files, folders, or - for paths on standard input.")
    var inputs: [String]

    func validate() throws {
        if filters.isEmpty { throw ValidationError("give at least one --filter (see `catctl filters`)") }
        if inputs.isEmpty { throw ValidationError("give at least one INPUT") }
        if shard != nil && parsedShard == nil { throw ValidationError("--shard must be K/N, e.g. 2/4") }
    }

    var parsedShard: (index: Int, count: Int)? {
        guard let shard else { return nil }
        let parts = shard.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2 else { return nil }
        return (parts[0], parts[1])
    }

    func run() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = self.jobs ?? cores
        let request = BatchRequest(inputs: inputs, outputDirectory: outputDirectory, filters: filters, format: format,
                                   jobs: jobs, quality: encoding.quality, pngLevel: encoding.pngLevel,
                                   maxPixels: try Limits.maxPixels(option: maxPixels), shard: parsedShard)
        let json = self.json
        let presenter = await MainActor.run {
            let console = Console.standard()
            let view: any BatchView = json ? BatchJSONView(console: console) : BatchTerminalView(console: console)
            let presenter = Router.makeBatch(view: view, interactor: BatchInteractor(threads: max(1, cores / max(1, jobs))))
            Interrupts.onInterrupt = { presenter.cancel() }
            return presenter
        }
        try await presenter.run(request).finish()
    }
}
