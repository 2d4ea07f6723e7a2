/// The system calls on paths that catctl makes, each through `FileNames.withPath`.
public enum FileSystem {
    /// stat(2) (`follow`) or lstat(2).
    public static func status(_ path: String, follow: Bool = true) -> stat? {
        var st = stat()
        let ok = FileNames.withPath(path) { follow ? stat($0, &st) : lstat($0, &st) } == 0
        return ok ? st : nil
    }

    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        FileNames.withPath(path) { CatSupport.open($0, flags, mode) }
    }

    public static func openat(_ dirfd: Int32, _ name: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        FileNames.withPath(name) { CatSupport.openat(dirfd, $0, flags, mode) }
    }

    public static func isDirectory(_ path: String) -> Bool {
        status(path).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
    }

    public static func exists(_ path: String, follow: Bool = true) -> Bool { status(path, follow: follow) != nil }

    /// The absolute path with every link resolved (realpath(3)), or nil.
    public static func resolved(_ path: String) -> String? {
        FileNames.withPath(path) { p -> String? in
            guard let real = realpath(p, nil) else { return nil }
            defer { free(real) }
            return FileNames.decode(
                UnsafeBufferPointer(start: real, count: strlen(real)).lazy.map { UInt8(bitPattern: $0) })
        }
    }

    /// The type (S_IFDIR, S_IFREG, …) of `name` in the folder open as `fd`; `follow`: of
    /// what a link leads to.
    public static func type(of name: String, in fd: Int32, follow: Bool) -> mode_t? {
        var st = stat()
        let ok = FileNames.withPath(name) { fstatat(fd, $0, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) } == 0
        return ok ? st.st_mode & S_IFMT : nil
    }

    /// The names in the folder open as `fd` (left open), "." and ".." left out, each with
    /// its type (S_IFDIR, S_IFREG, S_IFLNK, …; links not followed), in the order read;
    /// only those whose name's bytes `named` keeps (looked at before a name is decoded: a
    /// folder of 52,000 files is read in a few milliseconds when few are kept).
    public static func entries(
        ofDirectory fd: Int32, named keep: (UnsafeRawBufferPointer) -> Bool = { _ in true }
    ) -> [(name: String, type: mode_t)]? {
        let own = dup(fd)
        guard own >= 0 else { return nil }
        guard let dir = fdopendir(own) else {
            close(own)
            return nil
        }
        defer { closedir(dir) }
        var out: [(String, mode_t)] = []
        // The name read through a pointer up to its NUL, never as d_name's 256 bytes: a record
        // is only as long as its name, and copying the whole array out of the last record of
        // readdir's buffer read past its end (a crash, now and then, in a folder of 52,000).
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let start = UnsafeRawPointer(entry) + nameOffset
            let bytes = UnsafeRawBufferPointer(start: start, count: strlen(start.assumingMemoryBound(to: CChar.self)))
            let name = keep(bytes) ? FileNames.decode(bytes) : nil
            guard let name, name != ".", name != ".." else { continue }
            // readdir's own type; a stat only where the file system does not give it.
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): out.append((name, S_IFDIR))
            case Int32(DT_REG): out.append((name, S_IFREG))
            case Int32(DT_LNK): out.append((name, S_IFLNK))
            case Int32(DT_UNKNOWN): out.append((name, type(of: name, in: fd, follow: false) ?? 0))
            default: out.append((name, 0))
            }
        }
        return out
    }
}

/// The reason an errno gives, in words ("no space left on the device"); `fallback` for 0.
package func errnoReason(_ code: Int32, fallback: String = "") -> String {
    switch code {
    case ENOSPC: return "no space left on the device"
    case 0: return fallback
    default: return String(cString: strerror(code))
    }
}

extension FileSystem {
    /// The bytes of the regular file at `path` (an installed model, a font), at most `maxBytes`:
    /// anything else (missing, a folder, a FIFO, a device, larger) is refused with why, in words.
    /// Inputs from users go through CatImageIO's `InputFile`, which knows stdin, pipes and S3.
    public static func readRegularFile(_ path: String, maxBytes: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return .failure(ReadFailure(path: path, reason: errnoReason(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            return .failure(ReadFailure(path: path, reason: "it is not a regular file"))
        }
        guard st.st_size <= maxBytes else {
            return .failure(ReadFailure(path: path, reason: "it is over \(maxBytes) bytes"))
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(ReadFailure(path: path, reason: errnoReason(errno))) }
            if n == 0 { break }  // shorter than it was
            done += n
        }
        return .success(Array(bytes.prefix(done)))
    }

    public struct ReadFailure: Error, Sendable, CustomStringConvertible {
        public let path: String, reason: String
        public var description: String { "cannot read \(path): \(reason)" }
    }
}
