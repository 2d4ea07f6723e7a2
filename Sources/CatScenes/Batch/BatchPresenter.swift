import FilterCore
import Foundation
import ImageIO

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
        var inputs: [String]
        var skipped = 0
        do {
            chain = try FilterChain(specs: request.filters)
            try await interactor.prepareOutputDirectory(request.outputDirectory)
            inputs = try await interactor.expandInputs(request.inputs)
            if let shard = request.shard {
                let mine = inputs.filter(shard.contains)
                skipped = inputs.count - mine.count
                inputs = mine
            }
        } catch {
            let failure = SceneFailure(error)
            view.showError(failure)
            return failure.status
        }
        let format = request.format
        let options = EditOptions(
            encode: EncodeOptions(
                format: .png, jpegQuality: request.quality, pngLevel: request.pngLevel,
                threads: max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, request.jobs))),
            maxPixels: request.maxPixels)

        let outputs = BatchPlanning.outputs(
            for: inputs.map { ($0, ImageFormat(path: $0)) },
            directory: request.outputDirectory, format: format)
        view.showPlan(BatchPlan(files: inputs.count, skipped: skipped))
        var ok = 0, failed = 0, megapixels = 0.0
        let interactor = self.interactor
        await withTaskGroup(of: (Int, Double?, String?, Int).self) { group in
            var next = 0
            func launch() {
                guard next < inputs.count, !Task.isCancelled else { return }
                let i = next
                next += 1
                let input = inputs[i], output = outputs[i]
                var fileOptions = options
                fileOptions.encode.format = format ?? ImageFormat(path: output) ?? .png
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
                    BatchFileResult(input: inputs[i], output: outputs[i], error: error, milliseconds: ms))
                let elapsed = Self.seconds(now() - start), done = ok + failed
                view.updateProgress(
                    BatchProgress(
                        done: done, total: inputs.count, megapixelsPerSecond: elapsed > 0 ? megapixels / elapsed : 0,
                        remainingSeconds: done > 0 ? elapsed / Double(done) * Double(inputs.count - done) : nil))
                launch()
            }
        }
        let interrupted = Task.isCancelled
        view.showSummary(
            BatchSummary(ok: ok, failed: failed, seconds: Self.seconds(now() - start), interrupted: interrupted))
        if interrupted { return .interrupted }
        return failed > 0 ? .dataError : .ok
    }

    nonisolated static func ms(_ d: Duration) -> Int { Int((d / .milliseconds(1)).rounded()) }
    nonisolated static func seconds(_ d: Duration) -> Double { d / .seconds(1) }
}
