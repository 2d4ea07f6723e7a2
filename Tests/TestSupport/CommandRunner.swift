import Foundation

/// Runs the built `catctl` binary, as a user's shell would.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String
    /// The largest resident set of the program (and the tools it ran under), in KiB.
    public var maxResidentKiB = 0
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stdoutLines: [String] { stdoutText.split(separator: "\n").map(String.init) }
}

public enum Catctl {
    /// The `catctl` executable next to the test bundle (or $CATCTL_BIN).
    public static let executable: URL? = {
        if let path = ProcessInfo.processInfo.environment["CATCTL_BIN"] { return URL(fileURLWithPath: path) }
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("catctl")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDir), !isDir.boolValue {
                return candidate
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    /// The binary is built with AddressSanitizer (`.build-asan`): its resident set counts the
    /// sanitizer's shadow and quarantine, so memory figures are not checked there.
    public static var isSanitized: Bool { executable?.path.contains(".build-asan") ?? true }

    /// Runs catctl with `arguments`; stdin from `stdinFile` (else empty), stdout to
    /// `stdoutFile` when given (e.g. /dev/full), else captured.
    public static func run(
        _ arguments: [String], stdinFile: String? = nil, stdoutFile: String? = nil,
        environment: [String: String] = [:], directory: URL? = nil
    ) throws -> CommandResult {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        return try run(
            program: executable, arguments, stdinFile: stdinFile, stdoutFile: stdoutFile, environment: environment,
            directory: directory)
    }

    /// Runs catctl as `run` does, under a memory cap (`prlimit --as`, left out when the
    /// binary is built with AddressSanitizer, whose shadow memory needs the address space)
    /// and killed after `seconds`: a hostile file that regresses fails loudly (137, or 134
    /// when an allocation fails), not slowly. The result carries the largest resident set.
    public static func runBounded(
        _ arguments: [String], memory: Int = 1 << 30, seconds: Int = 60, environment: [String: String] = [:],
        stdinFile: String? = nil, directory: URL? = nil
    ) throws -> CommandResult {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        let cap = isSanitized ? [] : ["/usr/bin/prlimit", "--as=\(memory)", "--"]
        let bounded = ["/usr/bin/timeout", "-s", "KILL", "\(seconds)"] + cap + [executable.path] + arguments
        // The resident set through GNU time, which forks: a child this process spawns takes
        // this process's own high-water mark with it (posix_spawn shares the memory until the
        // exec folds it in), so a test run that grew to 256 MB read 256 MB for every refusal.
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            return try run(
                program: URL(fileURLWithPath: bounded[0]), Array(bounded.dropFirst()), stdinFile: stdinFile,
                environment: environment, directory: directory)
        }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("catctl-rss-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let began = ContinuousClock.now
        var result = try run(
            program: URL(fileURLWithPath: time), ["-q", "-f", "%M", "-o", report.path] + bounded, stdinFile: stdinFile,
            environment: environment, directory: directory)
        recordTimer(ContinuousClock.now - began, of: seconds, arguments)
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        result.maxResidentKiB = text.split(separator: "\n").compactMap { Int($0) }.last ?? result.maxResidentKiB
        return result
    }

    /// With CATCTL_TIMER_LOG (scripts/test sets it), each bounded run's time against its kill
    /// timer is appended there, one line a run ("seconds timer command"), so that a run
    /// closer than 3x to its timer is named at the end of the suite (never a failure: a busy
    /// machine is slower, and the timer alone decides).
    static func recordTimer(_ elapsed: Duration, of seconds: Int, _ arguments: [String]) {
        guard let log = ProcessInfo.processInfo.environment["CATCTL_TIMER_LOG"], !log.isEmpty else { return }
        let taken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let line = String(format: "%.2f", taken) + " \(seconds) \(logWords(arguments.prefix(3)))\n"
        let fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withCString { write(fd, $0, strlen($0)) }  // one write: lines of parallel tests never mix
    }

    /// Runs any program the same way (GNU parallel driving catctl, say), with posix_spawn
    /// and waitpid rather than Foundation's Process, whose exit monitoring was seen to stall
    /// for minutes with many children running at once (one CI run: a 4 s test took 604 s).
    /// Output goes through temporary files, never pipes.
    public static func run(
        program executable: URL, _ arguments: [String], stdinFile: String? = nil, stdoutFile: String? = nil,
        environment: [String: String] = [:], directory: URL? = nil
    ) throws -> CommandResult {
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("catctl-run-\(UUID().uuidString)")
        let outPath = stdoutFile ?? scratch.appendingPathExtension("out").path
        let errPath = scratch.appendingPathExtension("err").path
        defer {
            if stdoutFile == nil { unlink(outPath) }
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinFile ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, outPath, O_WRONLY | O_CREAT | (stdoutFile == nil ? O_TRUNC : 0), 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // A working directory through sh, which then becomes the program.
        let command =
            directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0.path, executable.path] }
            ?? [executable.path]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let began = ContinuousClock.now
        let code = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        // As Foundation reports it: the exit status, or the signal that ended the program.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
        let out = stdoutFile == nil ? try Data(contentsOf: URL(fileURLWithPath: outPath)) : Data()
        let err = String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self)
        var result = CommandResult(status: exit, stdout: out, stderr: err)
        // Linux's wait4 gives the largest of the child and the children it waited for (timeout
        // waits for catctl; prlimit becomes it).
        result.maxResidentKiB = Int(usage.ru_maxrss)
        recordCPU(usage, ContinuousClock.now - began, [executable.path] + arguments)
        return result
    }

    /// With CATCTL_CPU_LOG (scripts/test sets it), each program a test runs (catctl, and the
    /// tools around it) appends its processor time and wall time there, one line a run
    /// ("cpu wall command"), so that a run's log says where the suite's time goes.
    /// A command's words for a log line: each its last path component, at most 60 characters,
    /// white space and controls as "_" (a caption of 500 lines made 500 lines of the log, and
    /// scripts/test's report of it failed).
    static func logWords<S: Sequence<String>>(_ words: S) -> String {
        words.map { word in
            let last = word.split(separator: "/").last.map(String.init) ?? word
            return String(
                String.UnicodeScalarView(
                    last.unicodeScalars.prefix(60).map {
                        $0.properties.isWhitespace || $0.properties.generalCategory == .control ? "_" : $0
                    }))
        }.joined(separator: " ")
    }

    static func recordCPU(_ usage: rusage, _ wall: Duration, _ command: [String]) {
        guard let log = ProcessInfo.processInfo.environment["CATCTL_CPU_LOG"], !log.isEmpty else { return }
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        // catctl past GNU time, timeout and prlimit (runBounded), else the program run.
        let names = command.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        let named = command[(names.firstIndex(of: "catctl") ?? 0)...].prefix(3)
        let line = String(format: "%.2f %.2f", cpu, seconds) + " \(logWords(named))\n"
        let fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withCString { write(fd, $0, strlen($0)) }
    }
}
