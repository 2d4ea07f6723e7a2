import Foundation

/// A program running in a real terminal: a detached tmux session of its own (its own
/// server socket), driven as a person would (`send-keys`) and read back as they would see
/// it (`capture-pane`). The program runs under `sh`, which saves `stty -g` before and
/// after it and writes its exit status, so tests can check the terminal was given back.
public final class TmuxSession {
    public static let available: Bool = tmux != nil

    static let tmux: URL? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }

    let socket: String
    /// The server's and the pane's processes, ended by pid when the session goes: tmux 3.3's
    /// `kill-server` answers but leaves a server whose pane sleeps (seen here), and such
    /// servers outlived the tests by ten minutes.
    private var serverPID: pid_t = 0, panePID: pid_t = 0
    /// Where sh writes `stty -g` before and after the program, and the program's status.
    public let directory: URL

    /// Starts `arguments` (the program first) in a `columns` x `rows` terminal, in `directory`
    /// (a new temporary one by default), with TERM=xterm-256color and `environment`.
    public init(
        _ arguments: [String], columns: Int = 100, rows: Int = 32, environment: [String: String] = [:],
        directory: URL? = nil
    ) throws {
        guard Self.tmux != nil else { throw CocoaError(.executableNotLoadable) }
        socket = "catctl-test-\(UUID().uuidString.prefix(8))"
        self.directory = try directory ?? Fixtures.temporaryDirectory()
        var env = ["TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        for (k, v) in environment { env[k] = v }
        let assignments = env.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quote($0.value))" }
        let command = (["env", "-u", "NO_COLOR", "-u", "TMUX"] + assignments + arguments.map(Self.quote))
            .joined(separator: " ")
        let d = Self.quote(self.directory.path)
        let script =
            "cd \(d) && stty -g > \(d)/stty-before; \(command); echo $? > \(d)/status.tmp; "
            + "mv \(d)/status.tmp \(d)/status; stty -g > \(d)/stty-after; echo EXITED; sleep 600"
        // The server this starts lives on: it must not hold a pipe of ours open.
        try run(
            ["-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "/bin/sh", "-c", script],
            capture: false)
        try run(["set-option", "-g", "escape-time", "0"])
        let pids = try run(["display-message", "-p", "#{pid} #{pane_pid}"]).split(separator: " ")
        serverPID = pids.first.flatMap { pid_t(String($0).trimmed) } ?? 0
        panePID = pids.dropFirst().first.flatMap { pid_t(String($0).trimmed) } ?? 0
    }

    deinit {
        _ = try? run(["kill-server"])
        if panePID > 0 { kill(-panePID, SIGKILL) }  // the pane's shell leads its process group (sleep included)
        if serverPID > 0 { kill(serverPID, SIGKILL) }
    }

    /// Runs tmux with posix_spawn and waitpid (not Foundation's Process: the server that
    /// `new-session` leaves behind must inherit no descriptor of ours, and its client must
    /// be reaped at once). Output goes through a temporary file, not a pipe.
    @discardableResult
    func run(_ arguments: [String], capture: Bool = true) throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, capture ? out.path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([Self.tmux!.path, "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, Self.tmux!.path, &actions, nil, argv, environ)
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return capture ? String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self) : ""
    }

    /// Keys by tmux's names: "Right", "Enter", "BSpace", "Escape", "C-u", "q".
    public func send(_ keys: String...) throws {
        for key in keys {
            try run(["send-keys", key])
            // A key right after Escape would read as Alt+key: give each its own moment, as typing does.
            if key == "Escape" { Thread.sleep(forTimeInterval: 0.15) }
        }
    }

    /// Text typed as it is.
    public func type(_ text: String) throws { try run(["send-keys", "-l", text]) }

    /// Text pasted as a terminal pastes it: in bracketed-paste marks when the program asked
    /// for them (mode 2004), else as the bare characters.
    public func paste(_ text: String) throws {
        try run(["set-buffer", "--", text])
        try run(["paste-buffer", "-p"])
    }

    /// The screen as text, one line per row.
    public func screen() throws -> String { try run(["capture-pane", "-p"]) }

    /// The screen with its colours (`capture-pane -e`).
    public func screenWithColours() throws -> String { try run(["capture-pane", "-p", "-e"]) }

    /// Waits until the screen satisfies `condition` (20 s at most, for slow sanitizer
    /// builds); returns it, or throws with the last screen seen.
    @discardableResult
    public func waitUntil(
        _ what: String = "the screen asked for", timeout: TimeInterval = 20, _ condition: (String) -> Bool
    ) throws -> String {
        let end = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < end {
            last = try screen()
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TimeoutError(what: what, screen: last)
    }

    /// Waits until `text` is on the screen.
    @discardableResult
    public func wait(for text: String, timeout: TimeInterval = 20) throws -> String {
        try waitUntil("'\(text)'", timeout: timeout) { $0.contains(text) }
    }

    /// The program's exit status once it has ended (waits for it).
    public func exitStatus(timeout: TimeInterval = 20) throws -> Int32 {
        let file = directory.appendingPathComponent("status")
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let text = try? String(contentsOf: file, encoding: .utf8), let status = Int32(text.trimmed) {
                // sh writes stty-after right after the status.
                Thread.sleep(forTimeInterval: 0.2)
                return status
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TimeoutError(what: "the program's end", screen: (try? screen()) ?? "")
    }

    /// `stty -g` before the program ran and after it ended.
    public func terminalSettings() throws -> (before: String, after: String) {
        (
            try String(contentsOf: directory.appendingPathComponent("stty-before"), encoding: .utf8).trimmed,
            try String(contentsOf: directory.appendingPathComponent("stty-after"), encoding: .utf8).trimmed
        )
    }

    /// The program's process id (the shell's child).
    public func programPID() throws -> Int32 {
        let shell = try run(["display-message", "-p", "#{pane_pid}"]).trimmed
        let result = try Catctl.run(program: URL(fileURLWithPath: "/usr/bin/pgrep"), ["-P", shell])
        guard let pid = Int32(result.stdoutText.trimmed.split(separator: "\n").first ?? "") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return pid
    }

    /// Resizes the terminal (the program gets SIGWINCH).
    public func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-x", "\(columns)", "-y", "\(rows)"])
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    public struct TimeoutError: Error, CustomStringConvertible {
        public let what: String
        public let screen: String
        public var description: String { "timed out waiting for \(what); the screen was:\n\(screen)" }
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
