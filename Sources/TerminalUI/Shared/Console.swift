import CatImageIO
import CatSupport

/// Somewhere text goes: a file descriptor, or memory in tests.
public protocol TextSink: AnyObject, Sendable {
    func write(_ text: String)
}

/// Writes to a file descriptor (1: stdout, 2: stderr). A closed pipe is not an error
/// worth dying for: output is dropped (SIGPIPE is ignored by the executable).
public final class FileDescriptorSink: TextSink, Sendable {
    public let fd: Int32
    public init(fd: Int32) { self.fd = fd }

    /// A name's raw bytes (FileNames' scalars for bytes that are not UTF-8) go out as those
    /// bytes: `batch --list` writes names a manifest must give back exactly.
    public func write(_ text: String) {
        let bytes = FileNames.encode(text)
        _ = bytes.withUnsafeBytes { SystemCalls.writeAll(fd, $0) }
    }
}

/// Collects everything written (for tests).
public final class MemorySink: TextSink, Sendable {
    private let buffer = LockedValue("")
    public init() {}
    public func write(_ text: String) { buffer.withLockedValue { $0 += text } }
    public var text: String { buffer.current }
    public var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// The two output streams and what the terminals behind them can do.
public struct Console: Sendable {
    public let stdout: any TextSink
    public let stderr: any TextSink
    /// stderr is a terminal: progress lines and escape codes are allowed there.
    public let stderrIsTerminal: Bool
    /// stdout is a terminal: the picture of a cat may be drawn there.
    public let stdoutIsTerminal: Bool
    /// Colours allowed (a terminal, and NO_COLOR not set).
    public let color: Bool
    /// How pictures are drawn on stdout.
    public let graphics: TerminalGraphics
    /// Width and height of the terminal, in characters.
    public let columns: Int
    public let rows: Int

    public init(
        stdout: any TextSink, stderr: any TextSink, stderrIsTerminal: Bool, color: Bool,
        stdoutIsTerminal: Bool = false, graphics: TerminalGraphics = TerminalGraphics(kind: .symbols, colors: .none),
        columns: Int = 80, rows: Int = 24
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.stderrIsTerminal = stderrIsTerminal
        self.stdoutIsTerminal = stdoutIsTerminal
        self.color = color && stderrIsTerminal
        self.graphics = graphics
        self.columns = columns
        self.rows = rows
    }

    /// The process's own stdout and stderr; honours NO_COLOR (https://no-color.org),
    /// COLORTERM (truecolor), `--graphics` (`graphics`, resolved with the environment) and
    /// the terminal's size (COLUMNS/LINES when not a terminal).
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment, graphics: GraphicsMode = .auto
    ) -> Console {
        let errTTY = isatty(STDERR_FILENO) == 1, outTTY = isatty(STDOUT_FILENO) == 1
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        var size = winsize()
        let known = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        let columns = known ? Int(size.ws_col) : Int(environment["COLUMNS"] ?? "") ?? 80
        let rows = known ? Int(size.ws_row) : Int(environment["LINES"] ?? "") ?? 24
        return Console(
            stdout: FileDescriptorSink(fd: STDOUT_FILENO), stderr: FileDescriptorSink(fd: STDERR_FILENO),
            stderrIsTerminal: errTTY, color: !noColor, stdoutIsTerminal: outTTY,
            graphics: TerminalGraphics.resolve(graphics, environment: environment, isTerminal: outTTY),
            columns: columns, rows: rows)
    }
}

/// ANSI escape sequences, used only when the console allows them.
enum ANSI {
    static let clearLine = "\r\u{1B}[2K"
    static func red(_ s: String) -> String { "\u{1B}[31m\(s)\u{1B}[0m" }
    static func bold(_ s: String) -> String { "\u{1B}[1m\(s)\u{1B}[0m" }
}
