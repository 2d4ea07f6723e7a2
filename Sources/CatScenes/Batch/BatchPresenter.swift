import CatImageIO
import CatSupport
import FilterCore

/// The Batch scene's logic: plans the run (inputs, shard, output names), keeps `jobs`
/// files in flight, reports each file and the progress, and decides the exit status:
/// 0 when every file was written, 65 when some failed (the rest are still written),
/// 130 when interrupted (finished files stay; unfinished ones leave nothing). A failure of
/// the network or object storage (75) or of the credentials (77) starts no new file: the
/// engine that runs the task can act on the status (retry it; `--skip-existing` makes
/// that cheap), and the run says which it was.
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
        if request.listOnly { return await list(request) }
        let start = now()
        let run: Run
        do {
            run = try await planRun(request)
        } catch {
            let failure = SceneFailure(error)
            view.showError(failure)
            return failure.status
        }
        view.showPlan(BatchPlan(files: run.work.count, otherShards: run.otherShards, existing: run.existing.count))
        for i in run.existing {
            view.showFileResult(
                BatchFileResult(
                    input: run.outputs.inputs.path(Int(i)), output: run.outputs.output(Int(i)), error: nil,
                    milliseconds: 0, skipped: true))
        }
        let tally = await process(run, request, start: start)
        let interrupted = Task.isCancelled
        view.showSummary(
            BatchSummary(
                ok: tally.ok, failed: tally.failed, skipped: tally.skipped, seconds: Self.seconds(now() - start),
                interrupted: interrupted,
                notStarted: run.work.count - tally.ok - tally.failed - (tally.skipped - run.existing.count),
                stoppedBy: tally.stop))
        if interrupted { return .interrupted }
        if let stop = tally.stop { return stop }
        return tally.failed > 0 ? .dataError : .ok
    }

    /// What a run does, decided before its first file: the chain, the output folder, every
    /// input's output (named from the whole list, before sharding, so every shard agrees),
    /// this shard's inputs (indices into `outputs.inputs`: four bytes each), and those whose
    /// output is there already (`--skip-existing`).
    struct Run {
        let chain: FilterChain
        let folder: OutputFolder
        let outputs: BatchOutputs
        let work: [Int32]
        let otherShards: Int
        let existing: [Int32]
    }

    private func planRun(_ request: BatchRequest) async throws -> Run {
        let chain = try FilterChain(catSpecs: request.filters, requireCat: request.requireCat)
        for notice in chain.notices { view.showNote(notice) }
        try Self.checkOutputsOutsideInputs(request.inputs, directory: request.outputDirectory)
        var folder = try await interactor.prepareOutputDirectory(request.outputDirectory)
        folder.keepExisting = request.skipExisting
        let inputs = try await interactor.expandInputs(
            request.inputs, manifest: request.manifest, recursive: request.recursive, skipping: folder,
            limit: request.maxInputs)
        showNotes(of: inputs)
        let outputs = try await Self.plan(inputs, directory: request.outputDirectory, format: request.format)
        try Self.checkOutputsOutsideInputs(request.inputs, outputs: outputs)
        var work: [Int32] = []
        work.reserveCapacity(request.shard == nil ? inputs.count : inputs.count / request.shard!.count + 16)
        for i in 0..<inputs.count where request.shard?.contains(bytes: inputs.pathBytes(i)) ?? true {
            work.append(Int32(i))
        }
        let otherShards = inputs.count - work.count
        var existing: [Int32] = []
        if request.skipExisting {
            let checked = work.filter { inputs.refusal(Int($0)) == nil }
            let present = try await interactor.existingOutputs(outputs, of: checked, in: folder)
            let done = Set(zip(checked, present).filter(\.1).map(\.0))
            existing = work.filter { done.contains($0) }
            work = work.filter { !done.contains($0) }
        }
        return Run(
            chain: chain, folder: folder, outputs: outputs, work: work, otherShards: otherShards, existing: existing)
    }

    /// How the files of a run went; `stop`: the gravest failure that stops it (75, 77).
    struct Tally {
        var ok = 0, failed = 0, skipped = 0, megapixels = 0.0
        var stop: ExitStatus?
    }

    /// The run's files, `request.jobs` at a time, each result shown as it comes.
    private func process(_ run: Run, _ request: BatchRequest, start: Duration) async -> Tally {
        let options = EditOptions(
            encode: EncodeOptions(
                format: .png, settings: request.encoding,
                threads: max(1, CPUs.available / max(1, request.jobs))),
            maxPixels: request.maxPixels, maxFrames: request.maxFrames, outputFolder: run.folder,
            specialFiles: request.allowSpecialFiles ? .all : .none)
        var tally = Tally(skipped: run.existing.count)
        let (interactor, work, outputs, chain) = (self.interactor, run.work, run.outputs, run.chain)
        await withTaskGroup(of: (input: String, output: String, FileOutcome, Int).self) { group in
            var next = 0
            func launch() {
                guard next < work.count, !Task.isCancelled, tally.stop == nil else { return }
                let index = Int(work[next])
                next += 1
                let input = outputs.inputs.path(index), output = outputs.output(index)
                // Refused before planning (a NUL in the name): a failed file of its own.
                let refusal = outputs.inputs.refusal(index)
                var fileOptions = options
                fileOptions.encode.format = request.format ?? ImageFormat(path: output) ?? .png
                group.addTask {
                    let clock = ContinuousClock(), began = clock.now
                    let outcome: FileOutcome
                    do {
                        if let refusal { throw ImageIOError.inputUnreadable(path: input, reason: refusal) }
                        let done = try await interactor.process(input, to: output, chain: chain, options: fileOptions)
                        outcome = .written(megapixels: done.megapixels, notes: done.notes)
                    } catch ImageIOError.inputUnreadable(let path, let reason) where refusal != nil {
                        outcome = .failed(SceneFailure(status: .dataError, message: "cannot read \(path): \(reason)"))
                    } catch let ImageIOError.storage(error) where error.kind == .exists {
                        outcome = .writtenMeanwhile  // by another task of the array (If-None-Match)
                    } catch {
                        outcome = .failed(SceneFailure(error))
                    }
                    return (input, output, outcome, Self.ms(clock.now - began))
                }
            }
            for _ in 0..<min(request.jobs, work.count) { launch() }
            while let (input, output, outcome, ms) = await group.next() {
                var error: String?
                switch outcome {
                case let .written(mp, notes):
                    tally.ok += 1
                    tally.megapixels += mp
                    for note in notes { view.showNote("\(input): \(note)") }
                case .writtenMeanwhile:
                    tally.skipped += 1
                case let .failed(failure):
                    tally.failed += 1
                    error = failure.message
                    if failure.status == .noPermission || (failure.status == .tempFail && tally.stop == nil) {
                        tally.stop = failure.status
                    }
                }
                view.showFileResult(
                    BatchFileResult(
                        input: input, output: output, error: error, milliseconds: ms,
                        skipped: outcome == .writtenMeanwhile))
                let elapsed = Self.seconds(now() - start)
                let done = tally.ok + tally.failed + tally.skipped - run.existing.count
                view.updateProgress(
                    BatchProgress(
                        done: done, total: work.count,
                        megapixelsPerSecond: elapsed > 0 ? tally.megapixels / elapsed : 0,
                        remainingSeconds: done > 0 ? elapsed / Double(done) * Double(work.count - done) : nil))
                launch()
            }
        }
        return tally
    }

    /// Every output's name, planned off the main actor (an interrupt is heard meanwhile, and
    /// ends a long plan).
    @concurrent
    nonisolated static func plan(_ inputs: BatchInputs, directory: String, format: ImageFormat?) async throws
        -> BatchOutputs
    {
        do {
            return try BatchOutputs(inputs, directory: directory, format: format, cancelled: { Task.isCancelled })
        } catch {
            switch error {
            case .cancelled: throw CancellationError()
            case let .unresolved(names):
                throw SceneFailure(
                    status: .usage,
                    message: "the outputs of \(names.joined(separator: ", ")) "
                        + "cannot be told apart (their paths hash alike): rename one")
            }
        }
    }

    /// What the inputs' reading noted (keys listed outside their prefix, paths given again).
    private func showNotes(of inputs: BatchInputs) {
        for note in inputs.notes { view.showNote(note) }
        if inputs.notesLeftOut > 0 { view.showNote("\(inputs.notesLeftOut) more like that") }
        if inputs.duplicates > 0 {
            view.showNote(
                "\(inputs.duplicates) path\(inputs.duplicates == 1 ? " was" : "s were") given again: each is one input")
        }
    }

    /// `--list`: the inputs a run would take (this shard's), one a line: a manifest. A
    /// path with a control character cannot be a manifest's line (a line break would split
    /// it, and a terminal would run the rest), nor one with an invisible format character
    /// (a bidi override reorders what a person reads): it is left out, and named. Shown a
    /// thousand at a time, never all at once.
    private func list(_ request: BatchRequest) async -> ExitStatus {
        do {
            let inputs = try await interactor.expandInputs(
                request.inputs, manifest: request.manifest, recursive: request.recursive, skipping: nil,
                limit: request.maxInputs)
            showNotes(of: inputs)
            var listed: [String] = [], leftOut: [String] = []
            for i in 0..<inputs.count where request.shard?.contains(bytes: inputs.pathBytes(i)) ?? true {
                let path = inputs.path(i)
                // A line's blanks at either end are not read back from a manifest.
                let blanks = [" ", "\t"].contains { path.hasPrefix($0) || path.hasSuffix($0) }
                if path.unicodeScalars.contains(where: Self.isControl) || inputs.refusal(i) != nil || blanks {
                    leftOut.append(path)
                } else {
                    listed.append(path)
                }
                if listed.count + leftOut.count >= 1000 {
                    view.showListing(listed, leftOut: leftOut)
                    listed.removeAll(keepingCapacity: true)
                    leftOut.removeAll(keepingCapacity: true)
                }
            }
            if !listed.isEmpty || !leftOut.isEmpty { view.showListing(listed, leftOut: leftOut) }
            return .ok
        } catch {
            let failure = SceneFailure(error)
            view.showError(failure)
            return failure.status
        }
    }

    /// C0, DEL, C1, and Unicode's format characters and line and paragraph separators.
    nonisolated static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if FileNames.rawByte(scalar) != nil { return false }  // a byte of a name, written as itself
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// Outputs may never land under an input prefix in object storage: the next run (or
    /// the next task listing it) would take them as inputs, and again (the loop of
    /// functions triggered by their own uploads). Checked on the output prefix before any
    /// listing, and on every output path once the names are known. Local folders need no
    /// check (`listingSkipsOutputs`): their walk never enters the output folder.
    static func checkOutputsOutsideInputs(
        _ inputs: [String], directory: String? = nil, outputs: BatchOutputs? = nil
    ) throws(SceneFailure) {
        let prefixes: [(path: String, store: any Storage)] = inputs.compactMap { input in
            let storage = Storages.storage(for: input)
            guard !storage.listingSkipsOutputs, (try? storage.isFolder(input)) == true else { return nil }
            return (input, storage)
        }
        guard !prefixes.isEmpty else { return }
        var targets: [String] = []
        if let directory, let isFolder = try? Storages.storage(for: directory).isFolder(directory) {
            targets.append(isFolder ? directory : directory + "/")
        }
        func check(_ target: String) throws(SceneFailure) {
            guard let prefix = prefixes.first(where: { $0.store.contains(folder: $0.path, target) })?.path else {
                return
            }
            throw SceneFailure(
                status: .usage,
                message: "\(target) would land under the input prefix \(prefix): outputs there would be taken "
                    + "as inputs by the next run; choose --output-dir outside it")
        }
        for target in targets { try check(target) }
        if let outputs {
            for i in 0..<outputs.inputs.count where outputs.inputs.refusal(i) == nil { try check(outputs.output(i)) }
        }
    }

    enum FileOutcome: Equatable {
        case written(megapixels: Double, notes: [String])
        case writtenMeanwhile
        case failed(SceneFailure)
    }

    nonisolated static func ms(_ d: Duration) -> Int { Int((d / .milliseconds(1)).rounded()) }
    nonisolated static func seconds(_ d: Duration) -> Double { d / .seconds(1) }
}
