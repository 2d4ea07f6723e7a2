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
    /// output's folders below it first; returns its megapixels.
    func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws -> Double
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
                if let store = ObjectStores.store(for: input) {
                    // A prefix is listed (as a folder is walked); an object is one input.
                    guard try Self.storage(input, { () throws(StorageError) in try store.isPrefix(input) }) else {
                        try out.add(input)
                        continue
                    }
                    // At most the inputs still allowed (every listed key counts, so none is dropped
                    // here); images by extension, keys with a hidden component (`.x/`, `.x.jpg`) left out.
                    try Self.storage(input) { () throws(StorageError) in
                        try store.list(
                            input, recursive: recursive, maxKeys: out.limit - out.count,
                            found: { path, relative in
                                let parts = FileNames.components(of: relative)
                                guard !parts.isEmpty, !parts.contains(where: FileNames.isHidden),
                                    !relative.hasSuffix("/"), ImageFormat(path: relative) != nil
                                else { return }
                                let start = FileNames.encode(path).count - FileNames.encode(relative).count
                                _ = try? out.add(path, relativeFrom: start)
                            },
                            outside: { path in
                                out.note(
                                    "left out \(path): the server listed it under \(input), but its key does not "
                                        + "start with that prefix")
                            })
                    }
                    continue
                }
                guard FileSystem.isDirectory(input) else {
                    try out.add(input)  // a missing file fails on its own, the others go on
                    continue
                }
                let folder = input.hasSuffix("/") ? input : input + "/"
                let start = FileNames.encode(folder).count
                for name in try Self.images(
                    in: folder, recursive: recursive, skipping: skipping, limit: out.limit - out.count)
                {
                    try out.add(folder + name, relativeFrom: start)
                }
            }
            // A manifest: the list of a bucket or a tree made once, so that N tasks do not each
            // list it. Read as it comes, within InputFile's size limit (512 MiB).
            if let manifest {
                if ObjectStores.store(for: manifest) != nil {
                    try out.addLines(try InputFile.read(manifest))
                } else {
                    let (fd, _) = try InputFile.open(manifest, maxBytes: InputFile.defaultMaxBytes)
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

    /// The images in `folder` (paths relative to it, sorted), hidden files and folders
    /// left out; symbolic links to folders are not followed, so a walk always ends, and
    /// the output folder is never entered.
    static func images(in folder: String, recursive: Bool, skipping: OutputFolder?, limit: Int = .max)
        throws(BatchInputs.Overflow) -> [String]
    {
        var found: [String] = []
        var over = false
        func walk(_ fd: Int32, _ prefix: String, depth: Int) {
            defer { close(fd) }
            var st = stat()
            // The output folder is never walked into (the folder given may be it: then its own images count).
            if depth > 0, let skipping, fstat(fd, &st) == 0, skipping.isFolder(st) { return }
            for entry in FileSystem.entries(ofDirectory: fd) ?? [] where !FileNames.isHidden(entry.name) && !over {
                switch entry.type {
                case S_IFDIR:
                    guard recursive, depth < 256 else { continue }
                    let sub = FileSystem.openat(fd, entry.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    if sub >= 0 { walk(sub, prefix + entry.name + "/", depth: depth + 1) }
                case S_IFREG, S_IFLNK:
                    // A link counts when it leads to a file (never into a folder).
                    if ImageFormat(path: entry.name) != nil,
                        entry.type == S_IFREG || FileSystem.type(of: entry.name, in: fd, follow: true) == S_IFREG
                    {
                        guard found.count < limit else {
                            over = true
                            return
                        }
                        found.append(prefix + entry.name)
                    }
                default: continue
                }
            }
        }
        let top = FileSystem.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if top >= 0 { walk(top, "", depth: 0) }
        if over { throw BatchInputs.Overflow(limit: limit) }
        return found.sorted()
    }

    @concurrent
    public func prepareOutputDirectory(_ directory: String) async throws -> OutputFolder {
        try OutputFolder.prepare(directory)
    }

    @concurrent
    public func existingOutputs(_ outputs: BatchOutputs, of work: [Int32], in folder: OutputFolder) async throws
        -> [Bool]
    {
        if let store = ObjectStores.store(for: folder.path) {
            return try Self.storage(folder.path) { () throws(StorageError) in
                try store.existing(count: work.count, under: folder.path) { outputs.output(Int(work[$0])) }
            }
        }
        return work.map { FileSystem.exists(outputs.output(Int($0)), follow: false) }
    }

    @concurrent
    public func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws
        -> Double
    {
        try await edit.edit(.file(input), to: output, chain: chain, options: options, events: { _ in }).megapixels
    }
}

extension BatchInteractor {
    /// An object store's answer for `path`; its failure as a file's (a folder or bucket that
    /// is not there is an input that is missing).
    static func storage<T>(_ path: String, _ body: () throws(StorageError) -> T) throws(ImageIOError) -> T {
        do {
            return try body()
        } catch {
            if error.kind == .missingFolder { throw .inputMissing(path: path) }
            throw .storage(error)
        }
    }
}
