import Foundation

/// The one place that calls read(2) and write(2): both retry on EINTR and report errno,
/// after swift-nio's `syscall()` wrapper (NIOPosix/System.swift).
package enum SystemCalls {
    /// Writes all of `bytes` to `fd`, retrying short writes. Returns 0, or the errno of the failure.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
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
            let n = Foundation.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { return -Int(errno) }
        }
    }
}
