import Foundation

/// The reference tools of each format (djxl, heif-dec, tiffinfo, Python's Pillow...), run
/// on files catctl wrote: scripts/test installs them from Debian's packages.
public enum Oracle {
    /// The tool's path, when it is installed.
    public static func tool(_ name: String) -> URL? {
        ["/usr/bin/", "/usr/local/bin/"].map { URL(fileURLWithPath: $0 + name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    public static func has(_ name: String) -> Bool { tool(name) != nil }

    /// Runs `name` with `arguments`; throws when it is missing.
    public static func run(_ name: String, _ arguments: [String]) throws -> CommandResult {
        guard let program = tool(name) else { throw CocoaError(.fileNoSuchFile) }
        return try Catctl.run(program: program, arguments)
    }

    /// Whether `python3 -c "import MODULE"` works.
    public static func hasPython(_ module: String) -> Bool {
        (try? run("python3", ["-c", "import \(module)"]).status) == 0
    }

    /// Writes `bytes` to a new temporary file named `name` and returns its path.
    public static func file(_ bytes: [UInt8], named name: String) throws -> String {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}
