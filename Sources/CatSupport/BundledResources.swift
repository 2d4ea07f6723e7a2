/// The files that ship with catctl: `Resources/<name>` in a source tree, or
/// `share/catctl/<name>` beside `bin/` once installed (scripts/install), found from the
/// running executable, whatever the working folder.
public enum BundledResources {
    public static var processEnvironment: [String: String] { ProcessInfo.processInfo.environment }

    /// The folder `name` ("cats", "fonts"), or nil when none is found.
    public static func directory(_ name: String, environment: [String: String] = processEnvironment) -> String? {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "."
        var dir = URL(fileURLWithPath: exe).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            for place in ["share/catctl/" + name, "Resources/" + name] {
                let candidate = dir.appendingPathComponent(place)
                if isDirectory(atPath: candidate.path) {
                    return candidate.path
                }
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// The folder provider's default: $CATCTL_CATS_DIR, else the bundled cats.
    public static func catsDirectory(environment: [String: String] = processEnvironment) -> String? {
        environment["CATCTL_CATS_DIR"] ?? directory("cats", environment: environment)
    }
}
