import CatImageIO
import CatSupport
import FilterCore

/// The Batch use cases: list the inputs, edit one file (the Edit Cat use cases, reused).
public protocol BatchInteractorInput: Sendable {
    /// Files, folders (their images, sorted; at any depth when `recursive`, never inside
    /// `skipping`, however it is reached), S3 objects and prefixes (listed as folders are
    /// walked) and "-" (paths on stdin, one a line), in order; then the paths of the
    /// `manifest` file (a file or an S3 object), one a line, as on stdin. Each path once;
    /// more than `limit` of them is `BatchInputs.Overflow`.
    func expandInputs(_ inputs: [String], manifest: String?, recursive: Bool, skipping: OutputFolder?, limit: Int)
        async throws -> BatchInputs
    /// Makes the output folder when missing and resolves it, once for the run.
    func prepareOutputDirectory(_ directory: String) async throws -> OutputFolder
    /// Which of the outputs of `work` (indices of `outputs`, below `folder`) exist
    /// already: files, or objects in S3; one flag for each.
    func existingOutputs(_ outputs: BatchOutputs, of work: [Int32], in folder: OutputFolder) async throws -> [Bool]
    /// Edits one file (the Edit Cat use case) into `options.outputFolder`, making the
    /// output's folders below it first; returns its megapixels and what the edit noted (a
    /// cat filter found no cat, a cut-out on white for a JPEG).
    func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws
        -> (megapixels: Double, notes: [String])
}

public struct BatchInteractor: BatchInteractorInput {
    let edit: EditCatInteractor

    /// `threads`: for the filters of one file (cores / jobs).
    public init(threads: Int) {
        edit = EditCatInteractor(threads: threads)
    }

    @concurrent
    public func expandInputs(
        _ inputs: [String], manifest: String?, recursive: Bool, skipping: OutputFolder?, limit: Int
    ) async throws -> BatchInputs {
        var out = BatchInputs(limit: limit)
        do {
            for input in inputs {
                if input == "-" {
                    try Self.addLines(reading: STDIN_FILENO, name: "(stdin)", to: &out)
                    continue
                }
                // A folder (a local one, an S3 prefix) is listed; anything else is one input (a
                // missing file fails on its own, the others go on).
                let storage = Storages.storage(for: input)
                guard try Self.storage(input, { () throws(StorageError) in try storage.isFolder(input) }) else {
                    try out.add(input)
                    continue
                }
                // Images by extension, anything with a hidden component (`.x/`, `.x.jpg`) left
                // out; at most the bound on inputs, counted once each path is known to be new
                // (a path given before its folder is not counted twice).
                var overflow: BatchInputs.Overflow?
                do throws(StorageError) {
                    try storage.list(
                        input, recursive: recursive, maxKeys: out.limit, skipping: skipping,
                        keep: { relative in
                            let parts = FileNames.components(of: relative)
                            return !parts.isEmpty && !parts.contains(where: FileNames.isHidden)
                                && !relative.hasSuffix("/") && ImageFormat(path: relative) != nil
                        },
                        found: { path, relative in
                            guard overflow == nil else { return }
                            let start = FileNames.encode(path).count - FileNames.encode(relative).count
                            do throws(BatchInputs.Overflow) {
                                _ = try out.add(path, relativeFrom: start)
                            } catch {
                                overflow = error
                            }
                        },
                        outside: { path in
                            out.note(
                                "left out \(path): the server listed it under \(input), but its key does not "
                                    + "start with that prefix")
                        })
                } catch  where error.kind == .tooMany {
                    throw BatchInputs.Overflow(limit: out.limit)
                } catch {
                    throw Self.failure(input, error)
                }
                if let overflow { throw overflow }
            }
            // A manifest: the list of a bucket or a tree made once, so that N tasks do not each
            // list it. Read as it comes, within InputFile's size limit (512 MiB).
            if let manifest {
                switch try InputFile.open(manifest) {
                case let .bytes(bytes): try out.addLines(bytes)
                case let .file(fd, _), let .stream(fd):
                    defer { if fd != STDIN_FILENO { close(fd) } }
                    try Self.addLines(reading: fd, name: manifest, to: &out)
                }
            }
        } catch let overflow as BatchInputs.Overflow {
            throw SceneFailure(
                status: .usage,
                message: "over \(overflow.limit) inputs (files, listed objects and the lines of stdin and the "
                    + "manifest together, each path once): split the list, or raise --max-inputs (at most "
                    + "\(BatchInputs.maxLimit))")
        }
        return out
    }

    private static func addLines(reading fd: Int32, name: String, to out: inout BatchInputs) throws {
        do {
            try out.addLines(reading: fd, name: name)
        } catch {
            switch error {
            case let .unreadable(error): throw error
            case let .overflow(overflow): throw overflow
            case .cancelled: throw CancellationError()
            }
        }
    }

    @concurrent
    public func prepareOutputDirectory(_ directory: String) async throws -> OutputFolder {
        try OutputFolder.prepare(directory)
    }

    @concurrent
    public func existingOutputs(_ outputs: BatchOutputs, of work: [Int32], in folder: OutputFolder) async throws
        -> [Bool]
    {
        try Self.storage(folder.path) { () throws(StorageError) in
            try Storages.storage(for: folder.path).existing(count: work.count, under: folder.path) {
                outputs.output(Int(work[$0]))
            }
        }
    }

    @concurrent
    public func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws
        -> (megapixels: Double, notes: [String])
    {
        let outcome = try await edit.edit(.file(input), to: output, chain: chain, options: options, events: { _ in })
        let flattened = chain.mayMakeAlpha && !options.encode.format.keepsAlpha
        return (
            outcome.megapixels,
            outcome.notes + (flattened ? ["\(options.encode.format.displayName) has no transparency: on white"] : [])
        )
    }
}

extension BatchInteractor {
    /// A storage's answer for `path`; its failure as a file's.
    static func storage<T>(_ path: String, _ body: () throws(StorageError) -> T) throws(ImageIOError) -> T {
        do { return try body() } catch { throw failure(path, error) }
    }

    /// A folder or bucket that is not there is an input that is missing.
    static func failure(_ path: String, _ error: StorageError) -> ImageIOError {
        ImageIOError(error, path: path, in: .listing)
    }
}
