import CatSupport

/// The files the codecs read and write, wherever they are: each path goes to its storage
/// (`Storages.storage(for:)`: local files, or the object store that names it), and the
/// storage's failures come back as the files' own errors (`ImageIOError`), one mapping for
/// all. The rules of each storage are its own (`LocalFiles`; CatNetwork's `S3Store`).
extension Storages {
    /// The storage of `path`: the registered store that names it, else local files.
    public static func storage(for path: String) -> any Storage { store(for: path) ?? LocalFiles() }
}

extension ImageIOError {
    /// What was being done when a storage failed: the same kind reads differently.
    package enum StorageUse { case reading, writing, listing }

    /// A storage's failure as the files' error about `path` (as the user named it). The local
    /// kinds are the files' own cases; a store's are `.storage` (its own sentence), except a
    /// missing or too large object read (a missing or unreadable input), a missing bucket
    /// written to (an output that cannot be created) or listed (an input that is missing).
    package init(_ error: StorageError, path: String, in use: StorageUse) {
        let path = error.path.isEmpty ? path : error.path
        switch (error.kind, use) {
        case (.missing, .reading): self = .inputMissing(path: path)
        case (.tooLarge, .reading), (.unreadable, _): self = .inputUnreadable(path: path, reason: error.reason)
        case (.missingFolder, .writing), (.cannotCreate, _): self = .cannotCreate(path: path, reason: error.reason)
        case (.missingFolder, .listing): self = .inputMissing(path: path)
        case (.outputIsInput, _): self = .outputIsInput(path: path)
        case (.writeFailed, _): self = .writeFailed(path: path, reason: error.reason)
        case (.missing, _), (.tooLarge, _), (.missingFolder, _), (.usage, _), (.credentials, _), (.tooMany, _),
            (.exists, _), (.transient, _), (.refused, _), (.cancelled, _), (.cannotWrite, _):
            self = .storage(error)
        }
    }
}

/// Reading whole input files (or standard input, or objects).
public enum InputFile {
    /// Any image file larger than this is refused (a 100 MP PNG is far smaller).
    public static let defaultMaxBytes = 512 * 1024 * 1024

    public typealias Special = SpecialFiles

    /// The bytes of `path`, or of standard input when `path` is "-".
    public static func read(_ path: String, maxBytes: Int = defaultMaxBytes, special: Special = .pipes)
        throws(ImageIOError) -> [UInt8]
    {
        switch try open(path, maxBytes: maxBytes, special: special) {
        case let .bytes(bytes): return bytes
        case let .file(fd, size):
            defer { close(fd) }
            return try readAll(fd, path: path, sizeHint: size, maxBytes: maxBytes)
        case let .stream(fd):
            defer { if fd != STDIN_FILENO { close(fd) } }
            return try readAll(fd, path: path, sizeHint: 0, maxBytes: maxBytes)
        }
    }

    /// `path` opened by its storage (`Storage.open`); descriptors are the caller's to close.
    package static func open(_ path: String, maxBytes: Int = defaultMaxBytes, special: Special = .pipes)
        throws(ImageIOError) -> StoredInput
    {
        do { return try Storages.storage(for: path).open(path, maxBytes: maxBytes, special: special) } catch {
            throw ImageIOError(error, path: path, in: .reading)
        }
    }

    /// Everything left to read on `fd`, at most `maxBytes`. A non-blocking descriptor (a
    /// FIFO) is waited on while it has a writer; with none, it has ended.
    static func readAll(_ fd: Int32, path: String, sizeHint: Int, maxBytes: Int) throws(ImageIOError) -> [UInt8] {
        var bytes: [UInt8] = []
        if sizeHint > 0 { bytes.reserveCapacity(min(maxBytes, sizeHint)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { SystemCalls.readWaiting(fd, into: $0) }
            if n == 0 { break }
            if n < 0 { throw .inputUnreadable(path: path, reason: errnoReason(Int32(-n))) }
            guard bytes.count + n <= maxBytes else { throw .inputUnreadable(path: path, reason: tooLarge(maxBytes)) }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    static func tooLarge(_ maxBytes: Int) -> String { "larger than \(maxBytes / 1_048_576) MiB" }
}

/// An image file to decode: bytes in memory, or a regular file kept open. A codec whose
/// library reads as it goes (TIFF) reads the file with pread, so a large file is never
/// whole in memory; the others take all its bytes (`bytes()`, read once).
public final class ImageSource: Sendable {
    /// The file's size in bytes.
    public let count: Int
    /// The open file a codec may read from; nil for bytes in memory.
    let fileDescriptor: Int32?
    private let path: String
    /// The bytes once read (or given).
    private let memory: LockedValue<[UInt8]?>

    public init(bytes: [UInt8]) {
        count = bytes.count
        fileDescriptor = nil
        path = ""
        memory = LockedValue(bytes)
    }

    private init(fd: Int32, count: Int, path: String) {
        self.count = count
        fileDescriptor = fd
        self.path = path
        memory = LockedValue(nil)
    }

    /// `path` ("-": standard input) as a source: a regular file stays open (its size is
    /// checked against `maxBytes` now); standard input, pipes and devices are read whole,
    /// as `special` allows (see `LocalFiles.open`); an object comes into memory.
    public static func open(
        _ path: String, maxBytes: Int = InputFile.defaultMaxBytes, special: InputFile.Special = .pipes
    ) throws(ImageIOError) -> ImageSource {
        switch try InputFile.open(path, maxBytes: maxBytes, special: special) {
        case let .bytes(bytes): return ImageSource(bytes: bytes)
        case let .file(fd, size): return ImageSource(fd: fd, count: size, path: path)
        case let .stream(fd):
            defer { if fd != STDIN_FILENO { close(fd) } }
            return ImageSource(bytes: try InputFile.readAll(fd, path: path, sizeHint: 0, maxBytes: maxBytes))
        }
    }

    deinit { if let fileDescriptor { close(fileDescriptor) } }

    /// The first `n` bytes (fewer when the file is shorter).
    func head(_ n: Int) throws(ImageIOError) -> [UInt8] {
        if let memory = memory.current { return Array(memory.prefix(n)) }
        return try read(at: 0, count: min(n, count))
    }

    /// All the bytes (read from the file once, then kept).
    public func bytes() throws(ImageIOError) -> [UInt8] {
        try memory.withLockedValue { (memory) throws(ImageIOError) -> [UInt8] in
            if let memory { return memory }
            let all = try read(at: 0, count: count)
            memory = all
            return all
        }
    }

    private func read(at offset: Int, count: Int) throws(ImageIOError) -> [UInt8] {
        guard let fd = fileDescriptor, count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes {
                SystemCalls.pread(fd, into: .init(rebasing: $0[done...]), at: offset + done)
            }
            if n < 0 { throw .inputUnreadable(path: path, reason: errnoReason(Int32(-n))) }
            if n == 0 { break }  // shorter than it was: the decoder sees a cut file
            done += n
        }
        return Array(out.prefix(done))
    }
}

/// An output resolved and checked by its storage (`OutputFile.prepare`), to be written once
/// (`OutputFile.write(to:_:)`, `ImageFile`).
public final class PreparedOutput {
    /// As the user named it.
    public var path: String { output.path }
    let output: any StorageOutput
    var written = false

    init(_ output: any StorageOutput) { self.output = output }
}

/// Writing outputs through their storage, whole or not at all (see `LocalFiles` for the
/// rules of files: atomic renames, links, FIFOs, standard streams, batch's confinement).
public enum OutputFile {
    /// Temporary files being written now, so an interrupt can remove them.
    public static let pending = LockedValue<Set<String>>([])

    /// Throws `cannotCreate` when `path` cannot be created: its folder is missing or not
    /// writable, it is a folder, or it is the same file as `input` (unless `force`). With
    /// `within`, makes the folders below that folder that `path` needs.
    public static func checkCreatable(
        _ path: String, input: String? = nil, force: Bool = false, within root: OutputFolder? = nil
    ) throws(ImageIOError) {
        _ = try prepare(path, input: input, force: force, within: root)
    }

    /// `path` resolved and checked once, as `checkCreatable` checks it, before the work: what
    /// is written later goes where was checked (`write(to:_:)`).
    public static func prepare(
        _ path: String, input: String? = nil, force: Bool = false, within root: OutputFolder? = nil
    ) throws(ImageIOError) -> PreparedOutput {
        do {
            return PreparedOutput(
                try Storages.storage(for: path).prepare(
                    path, input: input, force: force, within: root, mediaType: ImageFormat(path: path)?.mediaType))
        } catch {
            throw ImageIOError(error, path: path, in: .writing)
        }
    }

    /// `path` when nothing is there, else the first free `stem-2.ext`, `stem-3.ext`, …: a
    /// name to suggest that never replaces a file the user has.
    public static func unusedName(_ path: String) -> String {
        guard FileSystem.exists(path, follow: false) else { return path }
        let dot = path.lastIndex(of: ".").flatMap { $0 > (path.lastIndex(of: "/") ?? path.startIndex) ? $0 : nil }
        let stem = dot.map { String(path[..<$0]) } ?? path, ext = dot.map { String(path[$0...]) } ?? ""
        for n in 2... {
            let candidate = "\(stem)-\(n)\(ext)"
            if !FileSystem.exists(candidate, follow: false) { return candidate }
        }
        return path
    }

    /// Whether two paths name the same file (same device and inode).
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        guard let sa = FileSystem.status(a), let sb = FileSystem.status(b) else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// The descriptor a path names by number: `/dev/stdout` (1), `/dev/stderr` (2),
    /// `/dev/fd/N`, `/proc/self/fd/N`. Written as the descriptor itself: reopening it would
    /// replace a redirected file, or lose an append.
    public static func standardStream(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                if let n = Int32(path.dropFirst(prefix.count)), inheritedDescriptors.contains(n) { return n }
            }
            return nil
        }
    }

    /// The descriptors the process was started with (`recordInheritedDescriptors`), the only
    /// ones `/dev/fd/N` may name: never one catctl's own libraries opened since.
    nonisolated(unsafe) public private(set) static var inheritedDescriptors: Set<Int32> = [0, 1, 2]

    /// Called first thing in `main`, before anything opens a descriptor.
    public static func recordInheritedDescriptors() {
        inheritedDescriptors = Set((0..<256).filter { fcntl($0, F_GETFD) != -1 })
    }

    /// Whether writing to `path` would put image bytes on a terminal ("-" is standard output).
    public static func isTerminal(_ path: String) -> Bool {
        if path == "-" { return isatty(STDOUT_FILENO) == 1 }
        if let fd = standardStream(path) { return isatty(fd) == 1 }
        guard let st = FileSystem.status(path), st.st_mode & S_IFMT == S_IFCHR else { return false }
        let fd = FileSystem.open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { CatSupport.close(fd) }
        return isatty(fd) == 1
    }

    /// Runs `body` with a descriptor to write to; the output appears only when `body`
    /// succeeds, and nothing of it stays when it throws.
    public static func write(
        to path: String, within root: OutputFolder? = nil, _ body: (Int32) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        try write(to: prepare(path, within: root), body)
    }

    /// Writes a prepared output (once): as `write(to:within:_:)`, where `prepare` checked.
    public static func write(
        to output: PreparedOutput, _ body: (Int32) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        do {
            try write(to: output, rethrowing: body)
        } catch let error as ImageIOError {
            throw error
        } catch {
            throw .writeFailed(path: output.path, reason: "\(error)")  // no storage throws other errors
        }
    }

    /// As `write(to:_:)`, for a body that may throw anything: its error is thrown as it is,
    /// after the output is discarded; the storage's own failures are `ImageIOError`s.
    public static func write(to output: PreparedOutput, rethrowing body: (Int32) throws -> Void) throws {
        precondition(!output.written, "an output is written once")
        output.written = true
        var failure: (any Error)?
        do {
            try output.output.write { fd in
                do { try body(fd) } catch {
                    failure = error
                    throw error
                }
            }
        } catch {
            if let failure { throw failure }
            if let error = error as? StorageError { throw ImageIOError(error, path: output.path, in: .writing) }
            throw ImageIOError.writeFailed(path: output.path, reason: "\(error)")
        }
    }

    /// Writes all of `bytes` to `fd` (retrying short writes); `path` names it in errors.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(ImageIOError) {
        let code = bytes.withUnsafeBytes { SystemCalls.writeAll(fd, $0) }
        if code != 0 { throw .writeFailed(path: path, reason: errnoReason(code)) }
    }

}

extension OutputFolder {
    /// Batch's output folder, made when missing and resolved, once when the run begins (a
    /// store's prefix has nothing to make: its bucket must be there, that is all).
    public static func prepare(_ path: String) throws(ImageIOError) -> OutputFolder {
        do { return try Storages.storage(for: path).prepareFolder(path) } catch {
            throw ImageIOError(error, path: path, in: .writing)
        }
    }
}

/// The temporary paths of outputs being written (`OutputFile.pending`), removed all at once
/// on interrupt.
extension LockedValue where Value == Set<String> {
    func add(_ path: String) { withLockedValue { _ = $0.insert(path) } }
    func remove(_ path: String) { withLockedValue { _ = $0.remove(path) } }

    /// Unlinks every pending temporary file; for signal handlers that then exit.
    public func removeAll() {
        withLockedValue { paths in
            for path in paths { FileNames.withPath(path) { _ = unlink($0) } }
            paths.removeAll()
        }
    }
}
