import Foundation

/// Reading whole input files (or standard input).
public enum InputFile {
    /// Any image file larger than this is refused (a 100 MP PNG is far smaller).
    public static let defaultMaxBytes = 512 * 1024 * 1024

    /// The bytes of `path`, or of standard input when `path` is "-".
    public static func read(_ path: String, maxBytes: Int = defaultMaxBytes) throws(ImageIOError) -> [UInt8] {
        let fd: Int32 = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .inputMissing(path: path) }
            throw .inputUnreadable(path: path, reason: errnoReason(code))
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw .inputUnreadable(path: path, reason: "it is a directory")
        }
        var bytes: [UInt8] = []
        if (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 {
            bytes.reserveCapacity(Int(min(Int64(maxBytes), Int64(st.st_size))))
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { SystemCalls.read(fd, into: $0) }
            if n == 0 { break }
            if n < 0 { throw .inputUnreadable(path: path, reason: errnoReason(Int32(-n))) }
            guard bytes.count + n <= maxBytes else {
                throw .inputUnreadable(path: path, reason: "larger than \(maxBytes / 1_048_576) MiB")
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }
}

/// Writing outputs so that a failure never leaves a partial file: the data goes to a
/// temporary file in the destination folder, which is renamed over the destination
/// only once complete.
public enum OutputFile {
    /// Temporary files being written now, so an interrupt can remove them.
    public static let pending = PendingFiles()

    /// Throws `cannotCreate` when `path` cannot be created: its folder is missing or not
    /// writable, it is a folder, or it is the same file as `input` (unless `force`).
    public static func checkCreatable(_ path: String, input: String? = nil, force: Bool = false) throws(ImageIOError) {
        if path == "-" { return }
        let dir = directory(of: path)
        var st = stat()
        guard stat(dir, &st) == 0 else {
            throw .cannotCreate(path: path, reason: "the folder \(dir) does not exist")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw .cannotCreate(path: path, reason: "\(dir) is not a folder")
        }
        guard access(dir, W_OK) == 0 else {
            throw .cannotCreate(path: path, reason: "the folder \(dir) is not writable")
        }
        var out = stat()
        if stat(path, &out) == 0 {
            if (out.st_mode & S_IFMT) == S_IFDIR { throw .cannotCreate(path: path, reason: "it is a folder") }
            if !force, let input, input != "-", isSameFile(path, input) {
                throw .outputIsInput(path: path)
            }
        }
    }

    /// `path` when nothing is there, else the first free `stem-2.ext`, `stem-3.ext`, …: a
    /// name to suggest that never replaces a file the user has.
    public static func unusedName(_ path: String) -> String {
        var st = stat()
        guard lstat(path, &st) == 0 else { return path }
        let dot = path.lastIndex(of: ".").flatMap { $0 > (path.lastIndex(of: "/") ?? path.startIndex) ? $0 : nil }
        let stem = dot.map { String(path[..<$0]) } ?? path, ext = dot.map { String(path[$0...]) } ?? ""
        for n in 2... {
            let candidate = "\(stem)-\(n)\(ext)"
            if lstat(candidate, &st) != 0 { return candidate }
        }
        return path
    }

    /// Whether two paths name the same file (same device and inode).
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Runs `body` with a descriptor to write to; for "-" that is standard output,
    /// otherwise a new temporary file that replaces `path` when `body` succeeds and is
    /// removed when it throws.
    public static func write(to path: String, _ body: (Int32) throws(ImageIOError) -> Void) throws(ImageIOError) {
        if path == "-" {
            try body(STDOUT_FILENO)
            return
        }
        let (fd, temp) = try createTemporary(near: path)
        defer { pending.remove(temp) }
        var existing = stat()
        if stat(path, &existing) == 0 { fchmod(fd, existing.st_mode & 0o7777) }  // keep an existing file's permissions
        do throws(ImageIOError) {
            try body(fd)
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        guard close(fd) == 0 else {
            let code = errno
            unlink(temp)
            throw .writeFailed(path: path, reason: errnoReason(code))
        }
        guard rename(temp, path) == 0 else {
            let code = errno
            unlink(temp)
            throw .cannotCreate(path: path, reason: errnoReason(code))
        }
    }

    /// Writes all of `bytes` to `fd` (retrying short writes); `path` names it in errors.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(ImageIOError) {
        let code = bytes.withUnsafeBytes { SystemCalls.writeAll(fd, $0) }
        if code != 0 { throw .writeFailed(path: path, reason: errnoReason(code)) }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    static func createTemporary(near path: String) throws(ImageIOError) -> (Int32, String) {
        let dir = directory(of: path)
        let base = path.split(separator: "/").last.map(String.init) ?? "output"
        for _ in 0..<16 {
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            let temp = "\(dir)/.\(base).catctl-\(suffix).tmp"
            pending.add(temp)  // before it exists, so an interrupt can never miss it
            let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 { return (fd, temp) }
            pending.remove(temp)
            if errno != EEXIST { throw .cannotCreate(path: path, reason: errnoReason(errno)) }
        }
        throw .cannotCreate(path: path, reason: "no free temporary name in \(dir)")
    }
}

/// A thread-safe set of temporary paths, removed all at once on interrupt.
public final class PendingFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: Set<String> = []

    func add(_ path: String) { lock.withLock { _ = paths.insert(path) } }
    func remove(_ path: String) { lock.withLock { _ = paths.remove(path) } }

    /// Unlinks every pending temporary file; for signal handlers that then exit.
    public func removeAll() {
        lock.withLock {
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }
}
