import Foundation

/// Runs the built `catctl` binary, as a user's shell would.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String
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

    /// Runs any program the same way (GNU parallel driving catctl, say).
    public static func run(
        program executable: URL, _ arguments: [String], stdinFile: String? = nil, stdoutFile: String? = nil,
        environment: [String: String] = [:], directory: URL? = nil
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("catctl-run-\(UUID().uuidString)")
        let outURL = stdoutFile.map(URL.init(fileURLWithPath:)) ?? scratch.appendingPathExtension("out")
        let errURL = scratch.appendingPathExtension("err")
        if stdoutFile == nil { _ = FileManager.default.createFile(atPath: outURL.path, contents: nil) }
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            if stdoutFile == nil { try? FileManager.default.removeItem(at: outURL) }
            try? FileManager.default.removeItem(at: errURL)
        }
        process.standardInput = stdinFile.flatMap { FileHandle(forReadingAtPath: $0) } ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        process.waitUntilExit()
        let out = stdoutFile == nil ? try Data(contentsOf: outURL) : Data()
        let err = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        return CommandResult(status: process.terminationStatus, stdout: out, stderr: err)
    }
}
