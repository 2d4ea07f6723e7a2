import ArgumentParser
import CatImageIO
import CatNetwork
import CatScenes
import CatSupport
import Dispatch
import TerminalUI

/// The composition root: argv → scene → exit status. Nothing else lives here.
@main
struct Catctl: AsyncParsableCommand {
    /// The one version string: `--version`, and the User-Agent of every HTTP request.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "catctl",
        abstract: "A cat photo editor for the terminal: decode, filter, encode \(ImageFormat.names).",
        discussion: """
            Exit codes:
            \(HelpLayout.table(exitCodes))

            Environment:
            \(HelpLayout.table(environment))
            """,
        version: version,
        subcommands: [Load.self, Edit.self, Batch.self, Detect.self, Filters.self, Bench.self, DocsTables.self]
    )

    /// The exit codes and environment variables, for the help (laid out for its width).
    static let exitCodes: [(term: String, text: String)] = ExitStatus.allCases.sorted { $0.rawValue < $1.rawValue }
        .map { (String($0.rawValue), $0.meaning) }
    static let environment: [(term: String, text: String)] = [
        ("CATCTL_API_KEY", "thecatapi key for load (or --api-key); never printed"),
        (
            "CATCTL_MAX_PIXELS",
            "the pixel limit, every frame of an animation counted (or --max-pixels; default 100000000); "
                + "--max-frames limits frames (default 10000)"
        ),
        (
            "CATCTL_FORMATS",
            "the formats whose decoders may run, e.g. jpeg,png,webp (or --formats); any other input is 65"
        ),
        ("CATCTL_CATS_DIR", "the folder provider's default folder (default: the bundled cats)"),
        (
            "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN",
            "credentials for s3://bucket/key paths; never printed"
        ),
        ("AWS_REGION, AWS_DEFAULT_REGION", "the region S3 requests are signed for (default us-east-1)"),
        (
            "AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL",
            "a custom S3 endpoint (MinIO, Ceph, SeaweedFS), addressed path-style"
        ),
        (
            "CATCTL_S3_PART_SIZE, CATCTL_S3_RETRIES, CATCTL_S3_STALL_SECONDS",
            "uploads over this many bytes are multipart (default 16 MiB); retries of a failed request (default 4); "
                + "a request moving under 1 KiB/s this long is abandoned (default 30)"
        ),
        (
            "CATCTL_FONT",
            "a .ttf/.otf for captions (default: the bundled DejaVu Sans Bold); 66 when missing or not a "
                + "regular file, 65 when not a font"
        ),
        ("NO_COLOR", "no colours; pictures in plain characters"),
        ("COLORTERM", "truecolor or 24bit: pictures in 24-bit colour (else 256 colours)"),
        ("COLUMNS, LINES", "the terminal's size when it cannot be asked"),
    ]

    static func main() async {
        OutputFile.recordInheritedDescriptors()  // before anything opens one
        SystemCalls.keepConsole()  // stderr, before a library call can point fd 2 elsewhere
        Interrupts.install()
        Storages.register(S3Store())  // s3:// paths, wherever a path is taken
        // Names that are not UTF-8 keep their bytes (FileNames); CommandLine.arguments would not.
        let arguments = Array(FileNames.commandLineArguments().dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let status as ExitCode {
            CatSupport.exit(status.rawValue)
        } catch {
            // Usage errors: with --json the last stdout line is still a JSON error.
            let code = exitCode(for: error).rawValue
            if code != 0, arguments.contains("--json") {
                let console = Console.standard()
                var message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "usage error"
                if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
                JSONLineWriter(console: console).emitError(code: code, message: message)
                CatSupport.exit(code)
            }
            if code != 0 {
                // The message may quote an argument (a file name): shown neutralised.
                let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false)
                FileDescriptorSink(fd: STDERR_FILENO).write(
                    lines.map { ForeignText.visible(String($0)) }.joined(separator: "\n") + "\n")
                CatSupport.exit(code)
            }
            exit(withError: error)
        }
    }
}

/// Ctrl-C, SIGTERM and SIGHUP. A command that can stop gracefully (load, batch) sets
/// `onInterrupt`: the first signal calls it, and the command ends itself with 130.
/// Otherwise, or on a second signal, temporary files of unfinished outputs are removed,
/// the transfers to object storage are stopped and their multipart uploads aborted, the
/// terminal is given back if a live scene has it, and we exit 130. The first signal of a
/// graceful stop also ends every retry of S3 requests: the files in flight finish or fail
/// at once, within a scheduler's grace period.
/// A closed stdout pipe must not kill us with SIGPIPE: writes then fail with EPIPE.
enum Interrupts {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    /// Returns false when there was nothing to stop gracefully.
    @MainActor static var onInterrupt: (@MainActor () -> Bool)?
    @MainActor static var interrupted = false

    static func install() {
        signal(SIGPIPE, SIG_IGN)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    S3Client.interrupted.withLockedValue { $0 = true }
                    if let graceful = onInterrupt, !interrupted, graceful() {
                        interrupted = true
                        return
                    }
                    OutputFile.pending.removeAll()
                    S3Client.stopTransfers()
                    LiveApp.restoreTerminal()
                    FileDescriptorSink(fd: STDERR_FILENO).write("\ncatctl: interrupted\n")
                    _exit(ExitStatus.interrupted.rawValue)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}

extension ExitStatus {
    /// What the status means, as the help and docs/CLI.md say it (one switch: a new status
    /// cannot go unexplained).
    var meaning: String {
        switch self {
        case .ok: "done"
        case .usage:
            "usage: bad option, unknown filter, bad value, unknown output extension, image bytes to a terminal "
                + "(redirect them or give --force)"
        case .dataError: "input data: not an image catctl reads, corrupt, truncated, over the pixel or frame limit"
        case .noInput: "input file (or CATCTL_FONT) missing or unreadable"
        case .unavailable: "network or service: connection failure, HTTP error, timeout, a reply that is not a cat"
        case .software: "internal error (a bug: please report it)"
        case .cannotCreate:
            "cannot create the output (folder missing, not writable, the output is the input, a link to nothing)"
        case .ioError: "I/O error while writing (disk full, a full device)"
        case .tempFail:
            "object storage or its network failed after the retries (a 5xx, a dropped connection, a stall): "
                + "run it again; batch starts no more files"
        case .noPermission: "object storage refused the credentials (S3's own code is named), or none are set"
        case .interrupted: "interrupted (Ctrl-C, SIGTERM); nothing partial is left behind"
        }
    }

    /// Ends a command with this status (0 returns normally).
    func finish() throws {
        if self != .ok { throw ExitCode(rawValue) }
    }
}
