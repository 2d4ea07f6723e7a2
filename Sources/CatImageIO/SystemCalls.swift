internal import CShimSupport
import CatSupport

/// The one place in Swift that calls read(2), pread(2), write(2) and poll(2): each retries on EINTR
/// and reports errno, after swift-nio's `syscall()` wrapper (NIOPosix/System.swift). (The
/// C shims have theirs: CShimSupport's `cs_write_all`.)
package enum SystemCalls {
    /// Takes a copy of descriptor 2 as catctl's own stderr, before any C library call can
    /// point fd 2 at a memory file (CShimSupport's quiet scopes, which keep the libraries'
    /// own printing off the terminal). The executable calls it first thing.
    package static func keepConsole() { _ = cs_console_fd() }

    /// What the C libraries printed on fd 2 since the last call (their last 16 KiB), raw:
    /// foreign text, to be neutralised before anyone sees it.
    package static func libraryChatter() -> String {
        var buffer = [CChar](repeating: 0, count: Int(CS_CHATTER_KEPT) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { cs_chatter_take($0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes all of `bytes` to `fd`, retrying short writes. Returns 0, or the errno of the failure.
    /// Descriptor 2 is catctl's own stderr (`cs_stderr_target`), also inside a quiet scope.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        let fd = fd == STDERR_FILENO ? cs_stderr_target() : fd
        var offset = 0
        while offset < bytes.count {
            let n = CatSupport.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return 0
    }

    /// One read(2) into `buffer`: the bytes read (0 at the end), or minus the errno.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let n = CatSupport.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { return -Int(errno) }
        }
    }

    /// `read`, but a non-blocking descriptor with nothing to read yet (a FIFO whose writer
    /// is slow) is waited on with poll(2) first; one with no writer has ended (0).
    package static func readWaiting(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let n = read(fd, into: buffer)
            guard n == -Int(EAGAIN) || n == -Int(EWOULDBLOCK) else { return n }
            let waited = poll(fd, events: Int16(POLLIN), milliseconds: -1)
            if waited < 0 { return waited }
        }
    }

    /// One pread(2) at `offset` into `buffer`: the bytes read (0 at the end), or minus the errno.
    package static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        while true {
            let n = CatSupport.pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { return -Int(errno) }
        }
    }

    /// Waits up to `milliseconds` for `events` on `fd`: whether they came (false: the time
    /// ran out), or minus the errno. An interrupted wait starts again.
    package static func poll(_ fd: Int32, events: Int16, milliseconds: Int32) -> Int {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let n = CatSupport.poll(&entry, 1, milliseconds)
            if n >= 0 { return Int(n) }
            if errno != EINTR { return -Int(errno) }
        }
    }
}
