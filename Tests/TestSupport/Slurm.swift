import Foundation

/// A one-node Slurm for the tests (Debian's slurmctld, slurmd and munge, which scripts/test
/// installs): munged with a key of its own, slurmctld and slurmd in the foreground, every
/// file (configuration, state, spool, logs, sockets) in a folder of its own, on free ports
/// of 127.0.0.1. A shell beside them stops them when the test process is gone. Slurm runs
/// jobs as their submitter, so it needs root, as CI is.
public final class Slurm: @unchecked Sendable {
    public let folder: URL
    public var configuration: String { folder.path + "/slurm.conf" }
    /// What sbatch, squeue and scontrol need to find it.
    public var environment: [String: String] { ["SLURM_CONF": configuration] }

    public struct SlurmError: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        for tool in ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol"]
        where Self.which(tool) == nil {
            throw SlurmError(
                description: "\(tool) is not installed (Debian's slurmctld, slurmd, munge): run scripts/test")
        }
        guard getuid() == 0 else {
            throw SlurmError(description: "a one-node Slurm runs its jobs as root here: run as root")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catctl-slurm-\(UUID().uuidString.prefix(8))")
        for sub in ["state", "spool", "munge"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        // munged wants every folder above its socket searchable by all, and nothing writable by others.
        chmod(folder.path, 0o711)
        chmod(folder.path + "/munge", 0o755)
        let ports = S3TestServer.freePorts(2)
        let d = folder.path
        let conf = """
            ClusterName=catctl
            SlurmctldHost=localhost(127.0.0.1)
            SlurmUser=root
            SlurmdUser=root
            AuthType=auth/munge
            AuthInfo=socket=\(d)/munge/munge.sock
            CredType=cred/munge
            SlurmctldPort=\(ports[0])
            SlurmdPort=\(ports[1])
            StateSaveLocation=\(d)/state
            SlurmdSpoolDir=\(d)/spool
            SlurmctldPidFile=\(d)/slurmctld.pid
            SlurmdPidFile=\(d)/slurmd.pid
            SlurmctldLogFile=\(d)/slurmctld.log
            SlurmdLogFile=\(d)/slurmd.log
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            JobAcctGatherType=jobacct_gather/none
            AccountingStorageType=accounting_storage/none
            SchedulerType=sched/builtin
            SelectType=select/cons_tres
            SelectTypeParameters=CR_CPU
            ReturnToService=2
            MinJobAge=600
            MpiDefault=none
            NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 State=UNKNOWN
            PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES

            """
        try Data(conf.utf8).write(to: URL(fileURLWithPath: configuration))
        let script = """
            set -e
            mungekey --create --keyfile="$D/munge.key"
            munged --key-file="$D/munge.key" --socket="$D/munge/munge.sock" --pid-file="$D/munged.pid" \\
              --log-file="$D/munged.log" --seed-file="$D/munge.seed"
            slurmctld -D -i -f "$D/slurm.conf" > "$D/slurmctld.out" 2>&1 & ctld=$!
            slurmd -D -N localhost -f "$D/slurm.conf" > "$D/slurmd.out" 2>&1 & d=$!
            set +e
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            kill $d $ctld "$(cat "$D/munged.pid")" 2>/dev/null; sleep 2; kill -9 $d $ctld 2>/dev/null
            rm -rf "$D"
            """
        let result = try Catctl.run(
            program: URL(fileURLWithPath: "/bin/sh"),
            ["-c", "nohup sh -c \"$0\" > \"$D/watcher.out\" 2>&1 &", script], environment: ["D": d])
        guard result.status == 0 else { throw SlurmError(description: "cannot start Slurm: \(result.stderr)") }
        // Ready when the node is idle: a few seconds.
        for _ in 0..<150 {
            if let info = try? run("sinfo", ["-h", "-o", "%t"]), info.stdoutText.hasPrefix("idle") { return }
            usleep(200_000)
        }
        throw SlurmError(description: "Slurm did not come up in 30 s (see \(d))")
    }

    /// Runs a Slurm client (sbatch, squeue, scontrol) against this cluster.
    public func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult
    {
        try Catctl.run(
            program: URL(fileURLWithPath: Self.which(tool) ?? tool), arguments,
            environment: environment.merging(self.environment) { $1 })
    }

    /// Submits `script` (sbatch, the environment passed on); the job's id.
    public func submit(_ script: String, _ arguments: [String] = [], environment: [String: String]) throws -> String {
        let result = try run(
            "sbatch", ["--parsable", "--chdir=\(folder.path)"] + arguments + [script], environment: environment)
        let id = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !id.isEmpty else { throw SlurmError(description: "sbatch failed: \(result.stderr)") }
        return id.split(separator: ";").first.map(String.init) ?? id
    }

    /// Waits until no task of job `id` is pending or running (at most `seconds`).
    public func wait(for id: String, seconds: Int = 300) throws {
        for _ in 0..<(seconds * 5) {
            let queue = try run("squeue", ["-h", "-j", id, "-o", "%T"])
            if queue.status == 0, queue.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return }
            usleep(200_000)
        }
        throw SlurmError(description: "job \(id) did not end in \(seconds) s")
    }

    /// Each array task's exit code, by task id (`scontrol show job`, kept for MinJobAge).
    public func exitCodes(of id: String) throws -> [Int: Int] {
        let shown = try run("scontrol", ["show", "job", id, "-o"])
        var codes: [Int: Int] = [:]
        for line in shown.stdoutLines {
            let fields = Dictionary(
                line.split(separator: " ").compactMap { field -> (String, String)? in
                    guard let eq = field.firstIndex(of: "=") else { return nil }
                    return (String(field[..<eq]), String(field[field.index(after: eq)...]))
                }, uniquingKeysWith: { a, _ in a })
            if let task = fields["ArrayTaskId"].flatMap({ Int($0) }),
                let code = fields["ExitCode"]?.split(separator: ":").first.flatMap({ Int($0) })
            {
                codes[task] = code
            }
        }
        return codes
    }

    static func which(_ tool: String) -> String? {
        for folder in ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/bin", "/usr/local/sbin"] {
            let path = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
