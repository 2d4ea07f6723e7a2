import Foundation

/// Runs a command on a pseudo-terminal (util-linux `script`), so it sees a terminal on
/// stdin, stdout and stderr whether or not the tests have one; the typescript holds every
/// byte it wrote, escape codes included.
public final class PtySession {
    public let process = Process()
    private let input = Pipe()
    private let log: URL

    /// `command`: a shell command line (quote arguments with `PtySession.quote`).
    public init(_ command: String, environment: [String: String] = [:], columns: Int = 100, rows: Int = 30) throws {
        let dir = try Fixtures.temporaryDirectory()
        log = dir.appendingPathComponent("typescript")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-f", "-e", "-c", command, log.path]
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "\(columns)"
        env["LINES"] = "\(rows)"
        env["TERM"] = "xterm-256color"
        env.removeValue(forKey: "TMUX")
        env.removeValue(forKey: "NO_COLOR")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Everything written to the terminal so far (without script's own header line, which
    /// quotes the command).
    public var typescript: String {
        let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        guard text.hasPrefix("Script started"), let end = text.firstIndex(of: "\n") else { return text }
        return String(text[text.index(after: end)...])
    }

    /// Waits (at most `timeout` seconds) until the typescript holds `text`; whether it does.
    @discardableResult
    public func wait(for text: String, timeout: TimeInterval = 20) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if typescript.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return typescript.contains(text)
    }

    /// Types `keys` on the terminal.
    public func type(_ keys: String) { input.fileHandleForWriting.write(Data(keys.utf8)) }

    /// Waits for the command to end; its exit status.
    public func finish() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs `command` to its end on a terminal: its status and what it wrote.
    public static func run(_ command: String, environment: [String: String] = [:]) throws -> (
        status: Int32, output: String
    ) {
        let session = try PtySession(command, environment: environment)
        let status = session.finish()
        return (status, session.typescript)
    }

    /// `argument` quoted for sh.
    public static func quote(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
