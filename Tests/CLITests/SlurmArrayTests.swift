import Foundation
import TestSupport
import Testing

/// The engine, for real: docs/examples/slurm-array.sh submitted to a one-node Slurm, its 4
/// tasks reading a manifest of 40 objects from SeaweedFS and writing there. Every output
/// exists once and is byte-identical to a one-machine run; run again, every file is
/// skipped; the server killed mid-run gives 75, and the array submitted again completes
/// the set.
@Suite("Slurm job arrays over object storage", .serialized)
struct SlurmArrayTests {
    static let script = Fixtures.packageRoot.appendingPathComponent("docs/examples/slurm-array.sh").path

    /// The outputs a task's log names (catctl writes each written path on its own line).
    func written(_ slurm: Slurm, job: String, prefix: String) -> [String] {
        (1...4).flatMap { task -> [String] in
            let log = slurm.folder.appendingPathComponent("catctl-\(job)_\(task).log").path
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
        }
    }

    func logs(_ slurm: Slurm, job: String) -> String {
        (1...4).map { task in
            (try? String(
                contentsOfFile: slurm.folder.appendingPathComponent("catctl-\(job)_\(task).log").path, encoding: .utf8))
                ?? "(no log for task \(task))"
        }.joined(separator: "\n")
    }

    @Test(.enabled(if: getuid() == 0, "Slurm runs its jobs as their submitter: root here, as in CI"))
    func aFourTaskArrayWritesEveryOutputOnceAndSurvivesALostServer() throws {
        var weed = try S3TestServer.seaweedFS()
        let slurm = try Slurm()
        let bucket = try weed.makeBucket()
        let names = Fixtures.contents(of: URL(fileURLWithPath: Fixtures.path("cats"))).filter { $0.hasSuffix(".jpg") }
        #expect(names.count >= 40)
        for name in names.prefix(40) { try weed.put(Fixtures.path("cats/\(name)"), bucket: bucket, key: "in/\(name)") }
        let binary = try #require(Catctl.executable).deletingLastPathComponent().path
        var env = weed.environment
        env["PATH"] = binary + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        env["CATCTL_MANIFEST"] = "s3://\(bucket)/list.txt"

        // The manifest, made once and put in the bucket.
        let listed = try Catctl.run(["batch", "--list", "s3://\(bucket)/in/"], environment: env)
        #expect(listed.status == 0 && listed.stdoutLines.count == 40, "\(listed.stderr)")
        let list = try Fixtures.temporaryDirectory().appendingPathComponent("list.txt")
        try listed.stdout.write(to: list)
        try weed.put(list.path, bucket: bucket, key: "list.txt")

        // One machine, for the bytes.
        let single = try Catctl.run(
            [
                "batch", "--filter", "sepia", "--manifest", "s3://\(bucket)/list.txt", "--output-dir",
                "s3://\(bucket)/single/",
            ],
            environment: env)
        #expect(single.status == 0, "\(single.stderr)")

        // Four tasks: every output once, byte for byte the one-machine run's.
        env["CATCTL_OUTPUT"] = "s3://\(bucket)/array/"
        let first = try slurm.submit(Self.script, environment: env)
        try slurm.wait(for: first)
        #expect(try slurm.exitCodes(of: first) == [1: 0, 2: 0, 3: 0, 4: 0], "\(logs(slurm, job: first))")
        let outputs = written(slurm, job: first, prefix: "s3://\(bucket)/array/")
        #expect(outputs.count == 40 && Set(outputs).count == 40, "\(logs(slurm, job: first))")
        let keys = try weed.keys(bucket: bucket)
        #expect(keys.filter { $0.hasPrefix("array/") }.count == 40)
        for name in names.prefix(40) {
            #expect(
                try weed.get(bucket: bucket, key: "array/\(name)") == weed.get(bucket: bucket, key: "single/\(name)"))
        }

        // Again: every file is skipped.
        let again = try slurm.submit(Self.script, environment: env)
        try slurm.wait(for: again)
        #expect(try slurm.exitCodes(of: again) == [1: 0, 2: 0, 3: 0, 4: 0])
        #expect(written(slurm, job: again, prefix: "s3://").isEmpty)
        let skipped = logs(slurm, job: again).split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: #"0 written, (\d+) skipped"#, options: .regularExpression) else {
                return nil
            }
            return Int(line[range].split(separator: " ")[2])
        }
        #expect(skipped.reduce(0, +) == 40, "\(logs(slurm, job: again))")

        // The server killed mid-run: the tasks caught in it end with 75, what was written
        // stays whole; submitted again once the server is back, the array completes the set.
        env["CATCTL_OUTPUT"] = "s3://\(bucket)/big/"
        env["CATCTL_FILTER"] = "resize:4800"  // slow enough (about 1 s a file) to be caught mid-run
        env["CATCTL_S3_RETRIES"] = "1"
        env["CATCTL_S3_STALL_SECONDS"] = "2"
        let broken = try slurm.submit(Self.script, environment: env)
        var seen = 0
        for _ in 0..<600 where seen == 0 {
            seen = (try? weed.keys(bucket: bucket).filter { $0.hasPrefix("big/") }.count) ?? 0
            usleep(100_000)
        }
        #expect(seen > 0 && seen < 40, "the kill came mid-run: \(seen) outputs")
        weed.kill()
        try slurm.wait(for: broken)
        let codes = try slurm.exitCodes(of: broken)
        #expect(codes.values.contains(75), "\(codes): \(logs(slurm, job: broken))")
        #expect(codes.values.allSatisfy { [0, 75].contains($0) }, "\(codes)")
        let before = written(slurm, job: broken, prefix: "s3://\(bucket)/big/")

        weed = try S3TestServer.seaweedFS(restarting: weed)
        // Back when its volumes are: until then SeaweedFS answers 500 (which catctl retries).
        for _ in 0..<300 where (try? weed.get(bucket: bucket, key: "list.txt")) == nil { usleep(100_000) }
        env["CATCTL_S3_RETRIES"] = nil
        env["CATCTL_S3_STALL_SECONDS"] = nil
        let resumed = try slurm.submit(Self.script, environment: env)
        try slurm.wait(for: resumed)
        #expect(try slurm.exitCodes(of: resumed) == [1: 0, 2: 0, 3: 0, 4: 0], "\(logs(slurm, job: resumed))")
        let after = written(slurm, job: resumed, prefix: "s3://\(bucket)/big/")
        #expect(before.count + after.count == 40 && Set(before + after).count == 40, "none missing, none twice")
        let big = try weed.keys(bucket: bucket).filter { $0.hasPrefix("big/") }
        #expect(big.count == 40)
        // Each is whole: byte for byte what one machine makes of it.
        let check = try Fixtures.temporaryDirectory()
        let local = try Catctl.run([
            "edit", "--filter", "resize:4800", Fixtures.path("cats/\(names[0])"), check.path + "/x.jpg",
        ])
        #expect(local.status == 0)
        #expect(
            try weed.get(bucket: bucket, key: "big/\(names[0])")
                == Data(contentsOf: check.appendingPathComponent("x.jpg")))
    }
}
