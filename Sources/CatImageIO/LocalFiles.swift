import CatSupport

/// Local files behind the storage seam (`Storage`): every path no object store names,
/// standard input and output ("-", `/dev/stdout`, `/dev/fd/N`) included. The files' rules:
///
/// - Reading: a regular file no larger than the limit, kept open (a codec reads it where it
///   needs); standard input, pipes and FIFOs (never waited on) and devices only as
///   `SpecialFiles` allows; a device is refused before it is opened.
/// - Writing, so that a failure never leaves a partial file and nothing lands where the user
///   did not mean: a regular file is written to a temporary file in its folder, synced, and
///   renamed over the destination (the folder synced after), keeping the mode of the file it
///   replaces; a symbolic link writes the file it points to, in that file's folder, and the
///   link stays; a FIFO or a device is written straight through; `/dev/stdout`, `/dev/fd/N`
///   and `/proc/self/fd/N` are the descriptor itself. The folder stays open from the check
///   (`prepare`) to the write, so a rename or a swapped link between them cannot send the
///   bytes elsewhere. Within batch's output folder no link is ever followed: folders are
///   made and opened one at a time with `openat(O_NOFOLLOW)`.
/// - Listing: a folder's images, sorted; hidden files and folders left out; links to
///   folders never followed, so a walk always ends; the output folder never entered.
public struct LocalFiles: Storage {
    public init() {}

    /// Everything no registered store names.
    public func names(_ path: String) -> Bool { true }

    public func isFolder(_ path: String) throws(StorageError) -> Bool { FileSystem.isDirectory(path) }

    /// A folder's walk never enters the output folder (`skipping`), so no output is listed.
    public var listingSkipsOutputs: Bool { true }

    public func contains(folder: String, _ path: String) -> Bool { false }

    /// Opens `path` ("-": standard input): not a folder, a regular file no larger than
    /// `maxBytes`, and another kind only as `special` allows. The open itself never waits.
    public func open(_ path: String, maxBytes: Int, special: SpecialFiles) throws(StorageError) -> StoredInput {
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
            case S_IFREG: if st.st_size > Int64(maxBytes) { refusal = InputFile.tooLarge(maxBytes) }
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
        if fd != STDIN_FILENO, (st.st_mode & S_IFMT) == S_IFREG { return .file(fd, size: Int(st.st_size)) }
        return .stream(fd)
    }

    public func prepare(
        _ path: String, input: String?, force: Bool, within root: OutputFolder?, mediaType: String?
    ) throws(StorageError) -> any StorageOutput {
        if path == "-" { return Output(path, .descriptor(STDOUT_FILENO)) }
        if let fd = OutputFile.standardStream(path) { return Output(path, .descriptor(fd)) }
        let destination = try Destination(path, within: root)
        let prepared = Output(path, .file(destination))  // closes the folder when done with
        if case .straightThrough = destination.kind { return prepared }
        guard faccessat(destination.folder, ".", W_OK, 0) == 0 else {
            throw .cannotCreate(path: path, reason: "the folder \(destination.folderPath) is not writable")
        }
        if !force, let input, input != "-", OutputFile.isSameFile(destination.shownPath, input) {
            throw .outputIsInput(path: path)
        }
        return prepared
    }

    /// Makes `path` (and its parents) when missing, and resolves it.
    public func prepareFolder(_ path: String) throws(StorageError) -> OutputFolder {
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

    /// The walk: hidden names left out; a link counts when it leads to a file (never into a
    /// folder); at most 256 folders deep; the files kept sorted by their path below `path`.
    public func list(
        _ path: String, recursive: Bool, maxKeys: Int, skipping: OutputFolder?, keep: (_ relative: String) -> Bool,
        found: (_ path: String, _ relative: String) -> Void, outside: (_ path: String) -> Void
    ) throws(StorageError) {
        var kept: [String] = []
        var over = false
        func walk(_ fd: Int32, _ prefix: String, depth: Int) {
            defer { close(fd) }
            var st = stat()
            // The output folder is never walked into (the folder given may be it: then its own files count).
            if depth > 0, let skipping, fstat(fd, &st) == 0, skipping.isFolder(st) { return }
            for entry in FileSystem.entries(ofDirectory: fd) ?? [] where !FileNames.isHidden(entry.name) && !over {
                switch entry.type {
                case S_IFDIR:
                    guard recursive, depth < 256 else { continue }
                    let sub = FileSystem.openat(fd, entry.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    if sub >= 0 { walk(sub, prefix + entry.name + "/", depth: depth + 1) }
                case S_IFREG, S_IFLNK:
                    let relative = prefix + entry.name
                    guard keep(relative),
                        entry.type == S_IFREG || FileSystem.type(of: entry.name, in: fd, follow: true) == S_IFREG
                    else { continue }
                    guard kept.count < maxKeys else {
                        over = true
                        return
                    }
                    kept.append(relative)
                default: continue
                }
            }
        }
        let top = FileSystem.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if top >= 0 { walk(top, "", depth: 0) }
        if over { throw StorageError(.tooMany, "\(path) holds over \(maxKeys) files", path: path) }
        let folder = path.hasSuffix("/") ? path : path + "/"
        for relative in kept.sorted() { found(folder + relative, relative) }
    }

    public func existing(count: Int, under folder: String, path: (Int) -> String) throws(StorageError) -> [Bool] {
        (0..<count).map { FileSystem.exists(path($0), follow: false) }
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

    /// A prepared output: a descriptor, or a path's folder, open.
    final class Output: StorageOutput {
        enum Place {
            /// "-", /dev/stdout, /dev/fd/N: the descriptor itself.
            case descriptor(Int32)
            /// A path: its folder, open.
            case file(Destination)
        }

        let path: String
        let place: Place

        init(_ path: String, _ place: Place) { (self.path, self.place) = (path, place) }

        deinit { if case let .file(destination) = place { destination.close() } }

        func write(_ body: (Int32) throws -> Void) throws {
            switch place {
            case let .descriptor(fd):
                try body(fd)
            case let .file(destination):
                switch destination.kind {
                case .straightThrough:
                    let fd = FileSystem.open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
                    guard fd >= 0 else { throw StorageError.cannotCreate(path: path, reason: errnoReason(errno)) }
                    // What was opened, not what was seen before: a file swapped in meanwhile is refused.
                    var st = stat()
                    guard fstat(fd, &st) == 0, [S_IFIFO, S_IFCHR].contains(st.st_mode & S_IFMT) else {
                        CatSupport.close(fd)
                        throw StorageError.cannotCreate(path: path, reason: "it changed while catctl opened it")
                    }
                    do {
                        try body(fd)
                    } catch {
                        CatSupport.close(fd)
                        throw error
                    }
                    guard CatSupport.close(fd) == 0 else {
                        throw StorageError.writeFailed(path: path, reason: errnoReason(errno))
                    }
                case let .atomic(name, existingMode):
                    try destination.replace(name, shown: path, mode: existingMode, body)
                }
            }
        }
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

        init(_ path: String, within root: OutputFolder?) throws(StorageError) {
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
            let folderPath = LocalFiles.directory(of: target)
            let folder = FileSystem.open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else {
                let code = errno
                if code == ENOENT { throw .cannotCreate(path: path, reason: "the folder \(folderPath) does not exist") }
                if code == ENOTDIR { throw .cannotCreate(path: path, reason: "\(folderPath) is not a folder") }
                throw .cannotCreate(path: path, reason: errnoReason(code))
            }
            self.init(
                kind: .atomic(
                    name: LocalFiles.baseName(of: target), existingMode: existing.map { $0.st_mode & 0o7777 }),
                folder: folder, folderPath: folderPath, shownPath: target)
        }

        private init(kind: Kind, folder: Int32, folderPath: String, shownPath: String) {
            self.kind = kind
            self.folder = folder
            self.folderPath = folderPath
            self.shownPath = shownPath
        }

        private init(straightThrough path: String) {
            self.init(kind: .straightThrough, folder: -1, folderPath: LocalFiles.directory(of: path), shownPath: path)
        }

        /// `path` is `root/a/b/name`: the root folder (resolved once, when the run began) is
        /// opened, then each folder below it with O_NOFOLLOW, made when missing; a link
        /// anywhere below the root, the leaf included, is refused.
        private init(confined path: String, root: OutputFolder) throws(StorageError) {
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
            _ name: String, shown path: String, mode: mode_t?, _ body: (Int32) throws -> Void
        ) throws {
            let (fd, temp) = try createTemporary(for: name, shown: path)
            let tempPath = folderPath + "/" + temp
            defer { OutputFile.pending.remove(tempPath) }
            func discard() { _ = FileNames.withPath(temp) { unlinkat(folder, $0, 0) } }
            if let mode { fchmod(fd, mode) }  // keep the replaced file's permissions
            do {
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
                throw StorageError.writeFailed(path: path, reason: errnoReason(synced != 0 ? synced : closed))
            }
            let renamed = FileNames.withPath(temp) { t in FileNames.withPath(name) { renameat(folder, t, folder, $0) } }
            guard renamed == 0 else {
                let code = errno
                discard()
                throw StorageError.cannotCreate(path: path, reason: errnoReason(code))
            }
            fsync(folder)
        }

        private func createTemporary(for name: String, shown path: String) throws(StorageError) -> (Int32, String) {
            LocalFiles.removeStaleTemporaries(in: folder)
            for _ in 0..<16 {
                let temp = LocalFiles.temporaryName()
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

extension LocalFiles {
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
        let prefix = Array(".catctl-".utf8)
        let named = { (name: UnsafeRawBufferPointer) in name.count == 19 && name.starts(with: prefix) }
        for entry in FileSystem.entries(ofDirectory: folder, named: named) ?? [] where entry.type == S_IFREG {
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
