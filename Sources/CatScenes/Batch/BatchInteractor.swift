import CatImageIO
import CatNetwork
import CatSupport
import FilterCore

/// The Batch use cases: list the inputs, edit one file (the Edit Cat use cases, reused).
public protocol BatchInteractorInput: Sendable {
    /// Files, folders (their images, sorted; at any depth when `recursive`, never inside
    /// `skipping`, however it is reached), S3 objects and prefixes (listed as folders are
    /// walked) and "-" (paths on stdin, one a line), in order; then the paths of the
    /// `manifest` file (a file or an S3 object), one a line, as on stdin.
    func expandInputs(_ inputs: [String], manifest: String?, recursive: Bool, skipping: OutputFolder?) async throws
        -> [BatchInput]
    /// Makes the output folder when missing and resolves it, once for the run.
    func prepareOutputDirectory(_ directory: String) async throws -> OutputFolder
    /// Which of these outputs (below `folder`) exist already: files, or objects in S3.
    func existingFiles(_ paths: [String], in folder: OutputFolder) async throws -> Set<String>
    /// Edits one file (the Edit Cat use case) into `options.outputFolder`, making the
    /// output's folders below it first; returns its megapixels.
    func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws -> Double
}

public struct BatchInteractor: BatchInteractorInput {
    let edit: EditCatInteractor
    let readStandardInput: @Sendable () -> [String]

    /// `threads`: for the filters of one file (cores / jobs).
    public init(
        threads: Int, readStandardInput: @escaping @Sendable () -> [String] = BatchInteractor.standardInputLines
    ) {
        edit = EditCatInteractor(threads: threads)
        self.readStandardInput = readStandardInput
    }

    /// Paths on standard input, one a line (`paths(in:)`).
    public static func standardInputLines() -> [String] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { SystemCalls.read(STDIN_FILENO, into: $0) }
            if n <= 0 { break }
            data += chunk[0..<n]
        }
        return paths(in: data)
    }

    /// Paths one a line, as bytes (a name need not be UTF-8): blanks around a path and empty
    /// lines are left out. What standard input with "-" and a manifest hold.
    static func paths(in data: [UInt8]) -> [String] {
        data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop {
                $0 == 0x20 || $0 == 0x09 || $0 == 0x0D
            }
            return trimmed.isEmpty ? nil : FileNames.decode(trimmed.reversed())
        }
    }

    @concurrent
    public func expandInputs(_ inputs: [String], manifest: String?, recursive: Bool, skipping: OutputFolder?)
        async throws -> [BatchInput]
    {
        var out: [BatchInput] = []
        for input in inputs {
            if input == "-" {
                out += readStandardInput().map { BatchInput(path: $0) }
                continue
            }
            if ObjectStorage.names(input) {
                // A prefix is listed (as a folder is walked); an object is one input.
                let location: S3Location
                do { location = try S3Location(input) } catch { throw ImageIOError.storage(error) }
                guard location.isPrefix else {
                    out.append(BatchInput(path: input))
                    continue
                }
                out += try ObjectStorage.images(under: input, recursive: recursive).map {
                    BatchInput(path: $0.path, relativePath: $0.relative)
                }
                continue
            }
            guard FileSystem.isDirectory(input) else {
                out.append(BatchInput(path: input))  // a missing file fails on its own, the others go on
                continue
            }
            let folder = input.hasSuffix("/") ? input : input + "/"
            out += Self.images(in: folder, recursive: recursive, skipping: skipping).map {
                BatchInput(path: folder + $0, relativePath: $0)
            }
        }
        // A manifest: the list of a bucket or a tree made once, so that N tasks do not each
        // list it. Read whole, within InputFile's size limit (512 MiB: millions of paths).
        if let manifest { out += Self.paths(in: try InputFile.read(manifest)).map { BatchInput(path: $0) } }
        return out
    }

    /// The images in `folder` (paths relative to it, sorted), hidden files and folders
    /// left out; symbolic links to folders are not followed, so a walk always ends, and
    /// the output folder is never entered.
    static func images(in folder: String, recursive: Bool, skipping: OutputFolder?) -> [String] {
        var found: [String] = []
        func walk(_ fd: Int32, _ prefix: String, depth: Int) {
            defer { close(fd) }
            var st = stat()
            // The output folder is never walked into (the folder given may be it: then its own images count).
            if depth > 0, let skipping, fstat(fd, &st) == 0, skipping.isFolder(st) { return }
            for entry in FileSystem.entries(ofDirectory: fd) ?? [] where !FileNames.isHidden(entry.name) {
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
                        found.append(prefix + entry.name)
                    }
                default: continue
                }
            }
        }
        let top = FileSystem.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if top >= 0 { walk(top, "", depth: 0) }
        return found.sorted()
    }

    @concurrent
    public func prepareOutputDirectory(_ directory: String) async throws -> OutputFolder {
        try OutputFolder.prepare(directory)
    }

    @concurrent
    public func existingFiles(_ paths: [String], in folder: OutputFolder) async throws -> Set<String> {
        if ObjectStorage.names(folder.path) { return try ObjectStorage.existing(paths, under: folder.path) }
        return Set(paths.filter { FileSystem.exists($0, follow: false) })
    }

    @concurrent
    public func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws
        -> Double
    {
        try await edit.edit(.file(input), to: output, chain: chain, options: options, events: { _ in }).megapixels
    }
}
