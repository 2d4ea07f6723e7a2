import CatImageIO
import CatSupport
import FilterCore

/// The Batch scene's logic: plans the run (inputs, shard, output names), keeps `jobs`
/// files in flight, reports each file and the progress, and decides the exit status:
/// 0 when every file was written, 65 when some failed (the rest are still written),
/// 130 when interrupted (finished files stay; unfinished ones leave nothing).
@MainActor
public final class BatchPresenter {
    private let view: any BatchView
    private let interactor: any BatchInteractorInput
    private let now: @MainActor () -> Duration
    private var task: Task<ExitStatus, Never>?

    public init(view: any BatchView, interactor: any BatchInteractorInput, now: (@MainActor () -> Duration)? = nil) {
        self.view = view
        self.interactor = interactor
        let origin = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - origin }
    }

    public func run(_ request: BatchRequest) async -> ExitStatus {
        let task = Task { await batch(request) }
        self.task = task
        return await task.value
    }

    /// Ctrl-C: no new file starts; files in flight finish; the run ends with 130. False
    /// when no run is under way.
    @discardableResult
    public func cancel() -> Bool {
        guard let task, !task.isCancelled else { return false }
        task.cancel()
        return true
    }

    private func batch(_ request: BatchRequest) async -> ExitStatus {
        let start = now()
        let chain: FilterChain
        var work: [(input: String, output: String)]
        var otherShards = 0
        var existing: [(input: String, output: String)] = []
        let folder: OutputFolder
        do {
            chain = try FilterChain(catSpecs: request.filters)
            folder = try await interactor.prepareOutputDirectory(request.outputDirectory)
            // Names come from the whole list, before sharding: every shard agrees on them.
            let all = try await interactor.expandInputs(
                request.inputs, manifest: request.manifest, recursive: request.recursive, skipping: folder)
            let outputs = BatchPlanning.outputs(for: all, directory: request.outputDirectory, format: request.format)
            work = zip(all.map(\.path), outputs).map { (input: $0, output: $1) }
            if let shard = request.shard {
                let mine = work.filter { shard.contains($0.input) }
                otherShards = work.count - mine.count
                work = mine
            }
            if request.skipExisting {
                let present = await interactor.existingFiles(work.map(\.output))
                existing = work.filter { present.contains($0.output) }
                work = work.filter { !present.contains($0.output) }
            }
        } catch {
            let failure = SceneFailure(error)
            view.showError(failure)
            return failure.status
        }
        let options = EditOptions(
            encode: EncodeOptions(
                format: .png, settings: request.encoding,
                threads: max(1, CPUs.available / max(1, request.jobs))),
            maxPixels: request.maxPixels, maxFrames: request.maxFrames, outputFolder: folder)

        view.showPlan(BatchPlan(files: work.count, otherShards: otherShards, existing: existing.count))
        for file in existing {
            view.showFileResult(
                BatchFileResult(
                    input: file.input, output: file.output, error: nil, milliseconds: 0,
                    skipped: true))
        }
        var ok = 0, failed = 0, megapixels = 0.0
        let interactor = self.interactor
        await withTaskGroup(of: (Int, Double?, String?, Int).self) { group in
            var next = 0
            func launch() {
                guard next < work.count, !Task.isCancelled else { return }
                let i = next
                next += 1
                let (input, output) = work[i]
                var fileOptions = options
                fileOptions.encode.format = request.format ?? ImageFormat(path: output) ?? .png
                group.addTask {
                    let clock = ContinuousClock(), began = clock.now
                    do {
                        let mp = try await interactor.process(input, to: output, chain: chain, options: fileOptions)
                        return (i, mp, nil, Self.ms(clock.now - began))
                    } catch {
                        return (i, nil, SceneFailure(error).message, Self.ms(clock.now - began))
                    }
                }
            }
            for _ in 0..<request.jobs { launch() }
            while let (i, mp, error, ms) = await group.next() {
                if let mp { ok += 1; megapixels += mp } else { failed += 1 }
                view.showFileResult(
                    BatchFileResult(input: work[i].input, output: work[i].output, error: error, milliseconds: ms))
                let elapsed = Self.seconds(now() - start), done = ok + failed
                view.updateProgress(
                    BatchProgress(
                        done: done, total: work.count, megapixelsPerSecond: elapsed > 0 ? megapixels / elapsed : 0,
                        remainingSeconds: done > 0 ? elapsed / Double(done) * Double(work.count - done) : nil))
                launch()
            }
        }
        let interrupted = Task.isCancelled
        view.showSummary(
            BatchSummary(
                ok: ok, failed: failed, skipped: existing.count, seconds: Self.seconds(now() - start),
                interrupted: interrupted))
        if interrupted { return .interrupted }
        return failed > 0 ? .dataError : .ok
    }

    nonisolated static func ms(_ d: Duration) -> Int { Int((d / .milliseconds(1)).rounded()) }
    nonisolated static func seconds(_ d: Duration) -> Double { d / .seconds(1) }
}
