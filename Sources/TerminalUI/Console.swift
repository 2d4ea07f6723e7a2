import Foundation

/// Somewhere text goes: a file descriptor, or memory in tests.
public protocol TextSink: AnyObject, Sendable {
    func write(_ text: String)
}

/// Writes to a file descriptor (1: stdout, 2: stderr). A closed pipe is not an error
/// worth dying for: output is dropped (SIGPIPE is ignored by the executable).
public final class FileDescriptorSink: TextSink, @unchecked Sendable {
    public let fd: Int32
    public init(fd: Int32) { self.fd = fd }

    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}

/// Collects everything written (for tests).
public final class MemorySink: TextSink, @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""
    public init() {}
    public func write(_ text: String) { lock.withLock { buffer += text } }
    public var text: String { lock.withLock { buffer } }
    public var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// The two output streams and what the terminal behind stderr can do.
public struct Console: Sendable {
    public let stdout: any TextSink
    public let stderr: any TextSink
    /// stderr is a terminal: progress lines and escape codes are allowed.
    public let stderrIsTerminal: Bool
    /// Colours allowed (a terminal, and NO_COLOR not set).
    public let color: Bool

    public init(stdout: any TextSink, stderr: any TextSink, stderrIsTerminal: Bool, color: Bool) {
        self.stdout = stdout
        self.stderr = stderr
        self.stderrIsTerminal = stderrIsTerminal
        self.color = color && stderrIsTerminal
    }

    /// The process's own stdout and stderr; honours NO_COLOR (https://no-color.org).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> Console {
        let tty = isatty(STDERR_FILENO) == 1
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        return Console(stdout: FileDescriptorSink(fd: STDOUT_FILENO), stderr: FileDescriptorSink(fd: STDERR_FILENO),
                       stderrIsTerminal: tty, color: !noColor && environment["TERM"] != "dumb")
    }
}

/// ANSI escape sequences, used only when the console allows them.
enum ANSI {
    static let clearLine = "\r\u{1B}[2K"
    static func red(_ s: String) -> String { "\u{1B}[31m\(s)\u{1B}[0m" }
    static func bold(_ s: String) -> String { "\u{1B}[1m\(s)\u{1B}[0m" }
}
