import CatSupport

/// Reading whole input files (or standard input).
public enum InputFile {
    /// Any image file larger than this is refused (a 100 MP PNG is far smaller).
    public static let defaultMaxBytes = 512 * 1024 * 1024

    /// Which inputs that are no regular file are read. A FIFO is opened without waiting
    /// for a writer (one with none reads as empty at once, never blocks the command), and
    /// every such input is read within the file size limit; standard input ("-") is read
    /// whatever it is.
    public enum Special: Sendable, Equatable {
        /// Regular files only (batch, detect): a FIFO or a device is refused at once.
        case none
        /// Also FIFOs and pipes (`edit <(curl …) out.png`); devices are refused.
        case pipes
        /// Also devices (`batch --allow-special-files`).
        case all
    }

    /// The bytes of `path`, or of standard input when `path` is "-".
    public static func read(_ path: String, maxBytes: Int = defaultMaxBytes, special: Special = .pipes)
        throws(ImageIOError) -> [UInt8]
    {
        if ObjectStorage.names(path) { return try ObjectStorage.read(path, maxBytes: maxBytes) }
        let (fd, st) = try open(path, maxBytes: maxBytes, special: special)
        defer { if fd != STDIN_FILENO { close(fd) } }
        return try readAll(
            fd, path: path, sizeHint: (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : 0, maxBytes: maxBytes)
    }

    /// Opens `path` for reading ("-": standard input) with its status: not a folder, a
    /// regular file no larger than `maxBytes`, and another kind only as `special` allows.
    /// The open itself never waits.
    package static func open(_ path: String, maxBytes: Int, special: Special = .pipes) throws(ImageIOError) -> (
        Int32, stat
    ) {
        // A device is refused before it is opened: opening one may act (a tape rewinds, a
        // watchdog starts). What was opened is checked again below.
        if path != "-", special != .all, let st = FileSystem.status(path) {
            let kind = st.st_mode & S_IFMT
            if kind == S_IFCHR || kind == S_IFBLK || kind == S_IFSOCK {
                throw .inputUnreadable(path: path, reason: "it is a device, not a regular file")
            }
            if kind == S_IFIFO, special == .none {
                throw .inputUnreadable(path: path, reason: "it is a FIFO (a pipe), not a regular file")
            }
        }
        let fd: Int32 =
            path == "-" ? STDIN_FILENO : FileSystem.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .inputMissing(path: path) }
            throw .inputUnreadable(path: path, reason: errnoReason(code))
        }
        var st = stat()
        if fstat(fd, &st) == 0 {
            let kind = st.st_mode & S_IFMT
            var refusal: String?
            switch kind {
            case S_IFDIR: refusal = "it is a directory"
            case S_IFREG: if st.st_size > Int64(maxBytes) { refusal = tooLarge(maxBytes) }
            case S_IFIFO:
                if fd != STDIN_FILENO, special == .none { refusal = "it is a FIFO (a pipe), not a regular file" }
            default:
                if fd != STDIN_FILENO, special != .all { refusal = "it is a device, not a regular file" }
            }
            if let refusal {
                if fd != STDIN_FILENO { close(fd) }
                throw .inputUnreadable(path: path, reason: refusal)
            }
            // A FIFO stays non-blocking (`readAll` waits for its writer's data with poll);
            // anything else reads as usual.
            if fd != STDIN_FILENO, kind != S_IFIFO { _ = fcntl(fd, F_SETFL, 0) }
        }
        return (fd, st)
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

    private static func tooLarge(_ maxBytes: Int) -> String { "larger than \(maxBytes / 1_048_576) MiB" }
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
    /// as `special` allows (see `InputFile.open`).
    public static func open(
        _ path: String, maxBytes: Int = InputFile.defaultMaxBytes, special: InputFile.Special = .pipes
    ) throws(ImageIOError) -> ImageSource {
        if ObjectStorage.names(path) { return ImageSource(bytes: try ObjectStorage.read(path, maxBytes: maxBytes)) }
        let (fd, st) = try InputFile.open(path, maxBytes: maxBytes, special: special)
        if fd != STDIN_FILENO, (st.st_mode & S_IFMT) == S_IFREG {
            return ImageSource(fd: fd, count: Int(st.st_size), path: path)
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        return ImageSource(bytes: try InputFile.readAll(fd, path: path, sizeHint: 0, maxBytes: maxBytes))
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

/// An output resolved and checked (`OutputFile.prepare`), to be written once
/// (`OutputFile.write(to:_:)`, `ImageFile`): a file's folder stays open from the check to the
/// write, so a rename or a swapped link between them cannot send the bytes elsewhere.
public final class PreparedOutput {
    enum Place {
        /// "-", /dev/stdout, /dev/fd/N: the descriptor itself.
        case descriptor(Int32)
        /// An `s3://` key.
        case objectStore(keepExisting: Bool)
        /// A path: its folder, open.
        case file(OutputFile.Destination)
    }

    /// As the user named it.
    public let path: String
    let place: Place
    var written = false

    init(_ path: String, _ place: Place) { (self.path, self.place) = (path, place) }

    deinit { if case let .file(destination) = place { destination.close() } }
}

/// Writing outputs so that a failure never leaves a partial file and nothing lands where
/// the user did not mean: a regular file is written to a temporary file in its folder,
/// synced, and renamed over the destination (the folder synced after), keeping the mode of
/// the file it replaces; a symbolic link writes the file it points to, in that file's
/// folder, and the link stays; a FIFO or a device is written straight through;
/// `/dev/stdout`, `/dev/fd/N` and `/proc/self/fd/N` are the descriptor itself.
/// With `within` (batch's output folder), no link below that folder is ever followed:
/// folders are made and opened one at a time with `openat(O_NOFOLLOW)`.
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

    /// `path` resolved and checked once, as `checkCreatable` checks it, before the work: the
    /// folder stays open, so what is written later goes where was checked (`write(to:_:)`).
    public static func prepare(
        _ path: String, input: String? = nil, force: Bool = false, within root: OutputFolder? = nil
    ) throws(ImageIOError) -> PreparedOutput {
        if path == "-" { return PreparedOutput(path, .descriptor(STDOUT_FILENO)) }
        if let fd = standardStream(path) { return PreparedOutput(path, .descriptor(fd)) }
        if ObjectStorage.names(path) {
            if !force, input == path { throw .outputIsInput(path: path) }
            // Below a batch's output prefix, its bucket was checked once when the run began.
            try ObjectStorage.checkCreatable(path, folderChecked: root != nil)
            return PreparedOutput(path, .objectStore(keepExisting: root?.keepExisting ?? false))
        }
        let destination = try Destination(path, within: root)
        let prepared = PreparedOutput(path, .file(destination))  // closes the folder when done with
        if case .straightThrough = destination.kind { return prepared }
        guard faccessat(destination.folder, ".", W_OK, 0) == 0 else {
            throw .cannotCreate(path: path, reason: "the folder \(destination.folderPath) is not writable")
        }
        if !force, let input, input != "-", isSameFile(destination.shownPath, input) {
            throw .outputIsInput(path: path)
        }
        return prepared
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

    /// Runs `body` with a descriptor to write to (see the type's comment); a regular file
    /// replaces `path` only when `body` succeeds, and is removed when it throws.
    public static func write(
        to path: String, within root: OutputFolder? = nil, _ body: (Int32) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        try write(to: prepare(path, within: root), body)
    }

    /// Writes a prepared output (once): as `write(to:within:_:)`, where `prepare` checked.
    public static func write(
        to output: PreparedOutput, _ body: (Int32) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        precondition(!output.written, "an output is written once")
        output.written = true
        let path = output.path
        switch output.place {
        case let .descriptor(fd):
            try body(fd)
        case let .objectStore(keepExisting):
            try ObjectStorage.write(to: path, keepExisting: keepExisting, body)
        case let .file(destination):
            switch destination.kind {
            case .straightThrough:
                let fd = FileSystem.open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
                guard fd >= 0 else { throw .cannotCreate(path: path, reason: errnoReason(errno)) }
                // What was opened, not what was seen before: a file swapped in meanwhile is refused.
                var st = stat()
                guard fstat(fd, &st) == 0, [S_IFIFO, S_IFCHR].contains(st.st_mode & S_IFMT) else {
                    CatSupport.close(fd)
                    throw .cannotCreate(path: path, reason: "it changed while catctl opened it")
                }
                do throws(ImageIOError) {
                    try body(fd)
                } catch {
                    CatSupport.close(fd)
                    throw error
                }
                guard CatSupport.close(fd) == 0 else {
                    throw .writeFailed(path: path, reason: errnoReason(errno))
                }
            case let .atomic(name, existingMode):
                try destination.replace(name, shown: path, mode: existingMode, body)
            }
        }
    }

    /// Writes all of `bytes` to `fd` (retrying short writes); `path` names it in errors.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(ImageIOError) {
        let code = bytes.withUnsafeBytes { SystemCalls.writeAll(fd, $0) }
        if code != 0 { throw .writeFailed(path: path, reason: errnoReason(code)) }
    }

    /// Paths are split at their "/" scalars, never at Characters: a name starting with a
    /// combining mark would otherwise fuse with the "/" before it.
    static func directory(of path: String) -> String {
        let scalars = path.unicodeScalars
        guard let slash = scalars.lastIndex(of: "/") else { return "." }
        let dir = String(scalars[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    static func baseName(of path: String) -> String {
        FileNames.components(of: path).last ?? path
    }

    /// Where an output goes: its folder, open, and how to write there.
    struct Destination {
        enum Kind {
            /// A FIFO or a device (reached through links or not): opened and written as it is.
            case straightThrough
            /// A regular file, or nothing yet: `name` in `folder`, replaced by a rename.
            case atomic(name: String, existingMode: mode_t?)
        }

        let kind: Kind
        /// The folder, open (O_DIRECTORY); -1 for straight-through outputs.
        let folder: Int32
        let folderPath: String
        /// The file written, for messages and sameness checks (the link's target for a link).
        let shownPath: String

        init(_ path: String, within root: OutputFolder?) throws(ImageIOError) {
            if let root {
                try self.init(confined: path, root: root)
                return
            }
            guard !path.isEmpty, !path.hasSuffix("/") else { throw .cannotCreate(path: path, reason: "it is a folder") }
            var target = path
            if let link = FileSystem.status(path, follow: false), link.st_mode & S_IFMT == S_IFLNK {
                guard let pointed = FileSystem.status(path) else {
                    let code = errno
                    throw .cannotCreate(
                        path: path,
                        reason: code == ENOENT
                            ? "it is a symbolic link to a file that does not exist"
                            : "its symbolic link cannot be followed: \(errnoReason(code))")
                }
                if [S_IFIFO, S_IFCHR].contains(pointed.st_mode & S_IFMT) {
                    self.init(straightThrough: path)
                    return
                }
                guard let resolved = FileSystem.resolved(path) else {
                    throw .cannotCreate(path: path, reason: "its symbolic link cannot be followed")
                }
                target = resolved
            }
            let existing = FileSystem.status(target, follow: false)
            switch existing.map({ $0.st_mode & S_IFMT }) {
            case S_IFDIR: throw .cannotCreate(path: path, reason: "it is a folder")
            case nil, S_IFREG: break
            case S_IFIFO, S_IFCHR:
                self.init(straightThrough: path)
                return
            default: throw .cannotCreate(path: path, reason: "it is not a file, a FIFO or a character device")
            }
            let folderPath = OutputFile.directory(of: target)
            let folder = FileSystem.open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else {
                let code = errno
                if code == ENOENT { throw .cannotCreate(path: path, reason: "the folder \(folderPath) does not exist") }
                if code == ENOTDIR { throw .cannotCreate(path: path, reason: "\(folderPath) is not a folder") }
                throw .cannotCreate(path: path, reason: errnoReason(code))
            }
            self.init(
                kind: .atomic(
                    name: OutputFile.baseName(of: target), existingMode: existing.map { $0.st_mode & 0o7777 }),
                folder: folder, folderPath: folderPath, shownPath: target)
        }

        private init(kind: Kind, folder: Int32, folderPath: String, shownPath: String) {
            self.kind = kind
            self.folder = folder
            self.folderPath = folderPath
            self.shownPath = shownPath
        }

        private init(straightThrough path: String) {
            self.init(kind: .straightThrough, folder: -1, folderPath: OutputFile.directory(of: path), shownPath: path)
        }

        /// `path` is `root/a/b/name`: the root folder (resolved once, when the run began) is
        /// opened, then each folder below it with O_NOFOLLOW, made when missing; a link
        /// anywhere below the root, the leaf included, is refused.
        private init(confined path: String, root: OutputFolder) throws(ImageIOError) {
            let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
            guard path.unicodeScalars.starts(with: prefix.unicodeScalars) else {
                throw .cannotCreate(path: path, reason: "it is outside the output folder \(root.path)")
            }
            let parts = FileNames.components(of: String(path.unicodeScalars.dropFirst(prefix.unicodeScalars.count)))
            guard let leaf = parts.last, !parts.contains(".."), !parts.contains(".") else {
                throw .cannotCreate(path: path, reason: "it is outside the output folder \(root.path)")
            }
            var folder = FileSystem.open(root.resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0, root.isFolder(open: folder) else {
                if folder >= 0 { CatSupport.close(folder) }
                throw .cannotCreate(path: path, reason: "the output folder \(root.path) is gone or was replaced")
            }
            // Named from the resolved folder: an interrupt removes the temporary file where it
            // really is, even if the link the user named was pointed elsewhere meanwhile.
            var folderPath = root.resolved
            for part in parts.dropLast() {
                folderPath += "/" + part
                var next = FileSystem.openat(folder, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if next < 0 && errno == ENOENT {
                    let made = FileNames.withPath(part) { mkdirat(folder, $0, 0o777) }
                    if made != 0 && errno != EEXIST {
                        let code = errno
                        CatSupport.close(folder)
                        throw .cannotCreate(
                            path: path, reason: "cannot make the folder \(folderPath): \(errnoReason(code))")
                    }
                    next = FileSystem.openat(folder, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
                let code = errno
                CatSupport.close(folder)
                guard next >= 0 else {
                    let reason =
                        code == ELOOP || code == ENOTDIR
                        ? "\(folderPath) is a symbolic link or not a folder (nothing is written through links "
                            + "inside the output folder)"
                        : errnoReason(code)
                    throw .cannotCreate(path: path, reason: reason)
                }
                folder = next
            }
            var st = stat()
            let found = FileNames.withPath(leaf) { fstatat(folder, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0
            if found && st.st_mode & S_IFMT != S_IFREG {
                CatSupport.close(folder)
                throw .cannotCreate(
                    path: path,
                    reason: st.st_mode & S_IFMT == S_IFLNK
                        ? "it is a symbolic link (nothing is written through links inside the output folder)"
                        : "it is not a regular file")
            }
            self.init(
                kind: .atomic(name: leaf, existingMode: found ? st.st_mode & 0o7777 : nil), folder: folder,
                folderPath: folderPath, shownPath: path)
        }

        func close() {
            if folder >= 0 { CatSupport.close(folder) }
        }

        /// `body` writes a new temporary file beside `name`, which is synced and renamed over
        /// `name`; the folder is synced after, so the new file survives a crash.
        func replace(
            _ name: String, shown path: String, mode: mode_t?, _ body: (Int32) throws(ImageIOError) -> Void
        ) throws(ImageIOError) {
            let (fd, temp) = try createTemporary(for: name, shown: path)
            let tempPath = folderPath + "/" + temp
            defer { OutputFile.pending.remove(tempPath) }
            func discard() { _ = FileNames.withPath(temp) { unlinkat(folder, $0, 0) } }
            if let mode { fchmod(fd, mode) }  // keep the replaced file's permissions
            do throws(ImageIOError) {
                try body(fd)
            } catch {
                CatSupport.close(fd)
                discard()
                throw error
            }
            let synced = fsync(fd) == 0 ? 0 : errno
            let closed = CatSupport.close(fd) == 0 ? 0 : errno
            guard synced == 0, closed == 0 else {
                discard()
                throw .writeFailed(path: path, reason: errnoReason(synced != 0 ? synced : closed))
            }
            let renamed = FileNames.withPath(temp) { t in FileNames.withPath(name) { renameat(folder, t, folder, $0) } }
            guard renamed == 0 else {
                let code = errno
                discard()
                throw .cannotCreate(path: path, reason: errnoReason(code))
            }
            fsync(folder)
        }

        private func createTemporary(for name: String, shown path: String) throws(ImageIOError) -> (Int32, String) {
            OutputFile.removeStaleTemporaries(in: folder)
            for _ in 0..<16 {
                let temp = OutputFile.temporaryName()
                OutputFile.pending.add(folderPath + "/" + temp)  // before it exists, so an interrupt can never miss it
                let fd = FileSystem.openat(folder, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
                if fd >= 0 {
                    // Held while it is written: another run's clean-up never takes a live one.
                    _ = flock(fd, LOCK_EX | LOCK_NB)
                    return (fd, temp)
                }
                let code = errno
                OutputFile.pending.remove(folderPath + "/" + temp)
                if code != EEXIST { throw .cannotCreate(path: path, reason: errnoReason(code)) }
            }
            throw .cannotCreate(path: path, reason: "no free temporary name in \(folderPath)")
        }
    }
}

extension OutputFile {
    /// The temporary file an output is written to before it is renamed into place:
    /// `.catctl-XXXXXXX.tmp`, 19 bytes whatever the output's name, so that any name a user
    /// can create can be written (a name of 236-255 bytes made a temporary name past
    /// NAME_MAX before).
    static func temporaryName() -> String {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        return ".catctl-" + String((0..<7).map { _ in digits[Int.random(in: 0..<36)] }) + ".tmp"
    }

    /// Whether `name` is catctl's own temporary name.
    static func isTemporaryName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 19, name.hasPrefix(".catctl-"), name.hasSuffix(".tmp") else { return false }
        return bytes[8..<15].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// Folders whose stale temporaries were looked for already (by device and inode):
    /// once a folder a run, however many files it writes there.
    private static let swept = LockedValue<Set<[UInt64]>>([])

    /// A temporary file a killed run left (SIGKILL, a power cut) is removed by the next run
    /// that writes into its folder: only catctl's own pattern, only a regular file older
    /// than a minute, and only when no live writer holds its lock.
    static func removeStaleTemporaries(in folder: Int32) {
        var st = stat()
        guard fstat(folder, &st) == 0 else { return }
        let key = [UInt64(st.st_dev), UInt64(st.st_ino)]
        guard swept.withLockedValue({ $0.insert(key).inserted }) else { return }
        let now = time(nil)
        for entry in FileSystem.entries(ofDirectory: folder) ?? [] where entry.type == S_IFREG {
            guard isTemporaryName(entry.name) else { continue }
            let fd = FileSystem.openat(folder, entry.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { CatSupport.close(fd) }
            var file = stat()
            guard fstat(fd, &file) == 0, file.st_mode & S_IFMT == S_IFREG, now - file.st_mtim.tv_sec > 60,
                flock(fd, LOCK_EX | LOCK_NB) == 0
            else { continue }
            _ = FileNames.withPath(entry.name) { unlinkat(folder, $0, 0) }
        }
    }
}

/// Batch's output folder, made if missing and resolved once when the run begins: outputs
/// go below it through `OutputFile.write(to:within:)`, which follows no link below it, and
/// the walk of the inputs leaves it out however it is reached (its device and inode).
public struct OutputFolder: Sendable, Equatable {
    /// As the user gave it: outputs are named below it in messages.
    public let path: String
    /// Every link resolved, at the start of the run.
    public let resolved: String
    let device: UInt64, inode: UInt64
    /// An output already there is kept, even when it is written meanwhile by another task
    /// of an array job (`--skip-existing`): S3 uploads then carry `If-None-Match: *`.
    public var keepExisting = false

    /// A folder known by its identity (tests; `prepare` finds these).
    public init(path: String, resolved: String, device: UInt64, inode: UInt64) {
        self.path = path
        self.resolved = resolved
        self.device = device
        self.inode = inode
    }

    /// Makes `path` (and its parents) when missing, and resolves it. A prefix in S3
    /// (`s3://bucket/prefix/`) has nothing to make: S3 must be set up, that is all.
    public static func prepare(_ path: String) throws(ImageIOError) -> OutputFolder {
        if ObjectStorage.names(path) {
            try ObjectStorage.checkFolder(path)
            return OutputFolder(path: path, resolved: path, device: 0, inode: 0)
        }
        if !FileSystem.exists(path) {
            var partial = path.hasPrefix("/") ? "" : "."
            for part in FileNames.components(of: path) {
                partial += "/" + part
                if FileSystem.isDirectory(partial) { continue }
                let made = FileNames.withPath(partial) { mkdir($0, 0o777) }
                let code = errno
                if made != 0 && code != EEXIST {
                    throw .cannotCreate(path: path, reason: "cannot make the folder \(partial): \(errnoReason(code))")
                }
            }
        }
        guard let st = FileSystem.status(path), st.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotCreate(path: path, reason: "it is not a folder")
        }
        guard FileNames.withPath(path, { access($0, W_OK) }) == 0 else {
            throw .cannotCreate(path: path, reason: "the folder is not writable")
        }
        guard let resolved = FileSystem.resolved(path) else {
            throw .cannotCreate(path: path, reason: "cannot resolve the folder")
        }
        return OutputFolder(path: path, resolved: resolved, device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Whether `st` is this folder.
    public func isFolder(_ st: stat) -> Bool { UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode }

    func isFolder(open fd: Int32) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && isFolder(st)
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
