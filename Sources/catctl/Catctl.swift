import ArgumentParser
import CatScenes
import Dispatch
import Foundation
import ImageIO
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
            Exit codes: 0 done, 64 usage, 65 bad input data, 66 input missing, 69 network or \
            service failure, 73 cannot create output, 74 write error, 130 interrupted.
            """,
        version: version,
        subcommands: [Load.self, Edit.self, Batch.self, Filters.self, Bench.self]
    )

    static func main() async {
        Interrupts.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let status as ExitCode {
            Foundation.exit(status.rawValue)
        } catch {
            // Usage errors: with --json the last stdout line is still a JSON error.
            let code = exitCode(for: error).rawValue
            if code != 0, arguments.contains("--json") {
                let console = Console.standard()
                var message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "usage error"
                if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
                console.stderr.write("catctl: \(message)\n")
                JSONLineWriter(sink: console.stdout).emitError(code: code, message: message)
                Foundation.exit(code)
            }
            exit(withError: error)
        }
    }
}

/// Ctrl-C and SIGTERM. A command that can stop gracefully (load, batch) sets `onInterrupt`:
/// the first signal calls it, and the command ends itself with 130. Otherwise, or on a
/// second signal, temporary files of unfinished outputs are removed and we exit 130.
/// A closed stdout pipe must not kill us with SIGPIPE: writes then fail with EPIPE.
enum Interrupts {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    /// Returns false when there was nothing to stop gracefully.
    @MainActor static var onInterrupt: (@MainActor () -> Bool)?
    @MainActor static var interrupted = false

    static func install() {
        signal(SIGPIPE, SIG_IGN)
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    if let graceful = onInterrupt, !interrupted, graceful() {
                        interrupted = true
                        return
                    }
                    OutputFile.pending.removeAll()
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
    /// Ends a command with this status (0 returns normally).
    func finish() throws {
        if self != .ok { throw ExitCode(rawValue) }
    }
}
