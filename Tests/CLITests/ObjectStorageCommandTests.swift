import Foundation
import TestSupport
import Testing

/// `s3://` paths end to end, against a real S3 server (SeaweedFS on 127.0.0.1): edit and
/// batch from S3 to S3 give the bytes a run on disk gives; listings, manifests, shards and
/// --skip-existing; the refusals and their exit codes.
@Suite("catctl and object storage (SeaweedFS)", .serialized)
struct ObjectStorageCommandTests {
    let server: S3TestServer

    init() throws {
        server = try S3TestServer.shared.get()
    }

    /// Cat photos in `bucket` under `prefix`, and the same files in a folder: `count` of the
    /// project's photos, plus one with a key of spaces, "+", "%" and non-ASCII letters in a
    /// sub-folder (and its copy at the same relative path on disk).
    func photos(_ bucket: String, prefix: String, count: Int) throws -> URL {
        let folder = try Fixtures.temporaryDirectory()
        let names = Fixtures.contents(of: URL(fileURLWithPath: Fixtures.path("cats"))).filter { $0.hasSuffix(".jpg") }
        for name in names.prefix(count) {
            try server.put(Fixtures.path("cats/\(name)"), bucket: bucket, key: prefix + name)
            try FileManager.default.copyItem(
                atPath: Fixtures.path("cats/\(name)"), toPath: folder.appendingPathComponent(name).path)
        }
        let odd = "sub dir/a+b%20é 😺.jpg"
        try server.put(Fixtures.path("cats/\(names[0])"), bucket: bucket, key: prefix + odd)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub dir"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Fixtures.path("cats/\(names[0])"), toPath: folder.appendingPathComponent(odd).path)
        return folder
    }

    /// Every file below `folder`, by relative path.
    func files(in folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let walker = FileManager.default.enumerator(atPath: folder.path)
        while let relative = walker?.nextObject() as? String {
            let url = folder.appendingPathComponent(relative)
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue {
                out[relative] = try Data(contentsOf: url)
            }
        }
        return out
    }

    @Test func editReadsAndWritesObjectsByteForByteAsOnDisk() throws {
        let bucket = try server.makeBucket()
        try server.put(Fixtures.path("jpeg/chelsea-420.jpg"), bucket: bucket, key: "in/chelsea 1+1.jpg")
        let local = try Fixtures.temporaryDirectory().appendingPathComponent("local.webp").path
        let onDisk = try Catctl.run(["edit", "--filter", "sepia", Fixtures.path("jpeg/chelsea-420.jpg"), local])
        #expect(onDisk.status == 0, "\(onDisk.stderr)")
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://\(bucket)/in/chelsea 1+1.jpg", "s3://\(bucket)/out/chelsea.webp"],
            environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try server.get(bucket: bucket, key: "out/chelsea.webp") == Data(contentsOf: URL(fileURLWithPath: local)))
        // And back: an object in, a file out.
        let back = try Fixtures.temporaryDirectory().appendingPathComponent("back.png").path
        let again = try Catctl.run(
            ["edit", "--filter", "mono", "s3://\(bucket)/out/chelsea.webp", back], environment: server.environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(FileManager.default.fileExists(atPath: back))
    }

    @Test func loadSavesToAKeyAndDetectReadsOne() throws {
        let bucket = try server.makeBucket()
        let load = try Catctl.run(
            ["load", "--provider", "folder", "--no-preview", "-o", "s3://\(bucket)/loaded/cat.jpg", "--json"],
            environment: server.environment)
        #expect(load.status == 0, "\(load.stderr)")
        #expect(load.stdoutText.contains(#""output":"s3://\#(bucket)/loaded/cat.jpg""#))
        let saved = try #require(try server.get(bucket: bucket, key: "loaded/cat.jpg"))
        #expect(saved.starts(with: [0xFF, 0xD8]))
        try server.put(Fixtures.path("cats/01-sol-nascente-siamese.jpg"), bucket: bucket, key: "cat.jpg")
        let detect = try Catctl.run(["detect", "--json", "s3://\(bucket)/cat.jpg"], environment: server.environment)
        let local = try Catctl.run(["detect", "--json", Fixtures.path("cats/01-sol-nascente-siamese.jpg")])
        #expect(detect.status == 0, "\(detect.stderr)")
        let faces = { (text: String) in text.components(separatedBy: #""faces":"#).last ?? "" }
        #expect(faces(detect.stdoutText) == faces(local.stdoutText) && faces(local.stdoutText).contains("score"))
    }

    @Test func aMultipartUploadGivesTheSameBytesAsOnePut() throws {
        let bucket = try server.makeBucket()
        try server.put(Fixtures.path("cats/01-sol-nascente-siamese.jpg"), bucket: bucket, key: "cat.jpg")
        // An uncompressed TIFF of 1600x1123 is 7.2 MB: two parts of 5 MiB.
        let local = try Fixtures.temporaryDirectory().appendingPathComponent("cat.tif").path
        let arguments = ["edit", "--filter", "sepia", "--compression", "none"]
        #expect(try Catctl.run(arguments + [Fixtures.path("cats/01-sol-nascente-siamese.jpg"), local]).status == 0)
        var environment = server.environment
        environment["CATCTL_S3_PART_SIZE"] = String(5 * 1_048_576)
        let result = try Catctl.run(
            arguments + ["s3://\(bucket)/cat.jpg", "s3://\(bucket)/cat.tif"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let written = try server.get(bucket: bucket, key: "cat.tif")
        #expect(written?.count ?? 0 > 5 * 1_048_576)
        #expect(written == (try Data(contentsOf: URL(fileURLWithPath: local))))
        // --skip-existing asks with HEAD, whose Content-Length is the object's 7 MB, not a body.
        let again = try Catctl.run(
            [
                "batch", "--filter", "sepia", "--compression", "none", "--format", "tif", "--skip-existing", "--json",
                "--output-dir", "s3://\(bucket)/", "s3://\(bucket)/cat.jpg",
            ], environment: environment)
        #expect(
            again.status == 0 && again.stdoutText.contains(#""skipped":true"#), "\(again.stdoutText) \(again.stderr)")
    }

    @Test func batchFromAPrefixToAPrefixWritesWhatADiskRunWrites() throws {
        let bucket = try server.makeBucket()
        let folder = try photos(bucket, prefix: "photos/", count: 12)
        let out = try Fixtures.temporaryDirectory()
        let disk = try Catctl.run(["batch", "--filter", "sepia", "--recursive", "--output-dir", out.path, folder.path])
        #expect(disk.status == 0, "\(disk.stderr)")
        let expected = try files(in: out)
        #expect(expected.count == 13)

        let args = ["batch", "--filter", "sepia", "--recursive", "--output-dir", "s3://\(bucket)/out/"]
        let result = try Catctl.run(args + ["s3://\(bucket)/photos/"], environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 13)
        for (relative, bytes) in expected {
            #expect(try server.get(bucket: bucket, key: "out/" + relative) == bytes, "\(relative)")
        }
        // Not recursive: the images directly below the prefix, and no sub-folder.
        let flat = try Catctl.run(
            ["batch", "--filter", "sepia", "--output-dir", "s3://\(bucket)/flat/", "s3://\(bucket)/photos/"],
            environment: server.environment)
        #expect(flat.status == 0 && flat.stdoutLines.count == 12, "\(flat.stderr)")

        // Run again with --skip-existing: every file is skipped (one listing or HEADs).
        let again = try Catctl.run(
            args + ["--skip-existing", "--json", "s3://\(bucket)/photos/"], environment: server.environment)
        #expect(again.status == 0, "\(again.stderr)")
        let skipped = again.stdoutLines.filter { $0.contains(#""skipped":true"#) }
        #expect(skipped.count == 13)
    }

    @Test func aListedManifestAndArrayShardsGiveEveryOutputOnce() throws {
        let bucket = try server.makeBucket()
        _ = try photos(bucket, prefix: "in/", count: 9)
        let env = server.environment
        // --list writes the manifest; it goes to the bucket, and each task reads it from there.
        let listed = try Catctl.run(["batch", "--list", "--recursive", "s3://\(bucket)/in/"], environment: env)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdoutLines.count == 10)
        #expect(listed.stdoutLines.contains("s3://\(bucket)/in/sub dir/a+b%20é 😺.jpg"))
        let manifest = try Fixtures.temporaryDirectory().appendingPathComponent("manifest.txt")
        try listed.stdout.write(to: manifest)
        try server.put(manifest.path, bucket: bucket, key: "manifest.txt")

        let whole = try Catctl.run(
            ["batch", "--filter", "fade", "--output-dir", "s3://\(bucket)/whole/", "--manifest", manifest.path],
            environment: env)
        #expect(whole.status == 0, "\(whole.stderr)")
        var written: [String] = []
        for k in 1...3 {
            var task = env
            task["JOB_COMPLETION_INDEX"] = String(k - 1)
            let result = try Catctl.run(
                [
                    "batch", "--filter", "fade", "--output-dir", "s3://\(bucket)/shards/", "--shard", "auto/3",
                    "--manifest", "s3://\(bucket)/manifest.txt",
                ], environment: task)
            #expect(result.status == 0, "\(result.stderr)")
            written += result.stdoutLines
        }
        // A manifest names outputs by each key's own name (its base name), as paths do; the
        // three tasks wrote every output once, each byte for byte as the one-machine run did.
        let keys = try server.keys(bucket: bucket)
        let shardKeys = keys.filter { $0.hasPrefix("shards/") }
        #expect(written.count == 10 && Set(written).count == 10)
        #expect(shardKeys.count == 10)
        #expect(shardKeys.contains("shards/a+b%20é 😺.jpg"))
        #expect(shardKeys.map { $0.dropFirst(7) } == keys.filter { $0.hasPrefix("whole/") }.map { $0.dropFirst(6) })
        for key in shardKeys {
            let name = String(key.dropFirst("shards/".count))
            #expect(
                try server.get(bucket: bucket, key: key) == server.get(bucket: bucket, key: "whole/" + name), "\(key)")
        }
    }

    @Test func outputsUnderAnInputPrefixAreRefusedBeforeAnyWork() throws {
        let bucket = try server.makeBucket()
        _ = try photos(bucket, prefix: "in/", count: 2)
        let result = try Catctl.run(
            ["batch", "--filter", "sepia", "--output-dir", "s3://\(bucket)/in/out/", "s3://\(bucket)/in/"],
            environment: server.environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("would land under the input prefix s3://\(bucket)/in/"), "\(result.stderr)")
        #expect(try server.keys(bucket: bucket).allSatisfy { !$0.hasPrefix("in/out/") })
    }

    @Test func wrongCredentialsAre77WithS3sCodeAndNoSecret() throws {
        let bucket = try server.makeBucket()
        try server.put(Fixtures.path("jpeg/chelsea-420.jpg"), bucket: bucket, key: "a.jpg")
        var env = server.environment
        env["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-\(UUID().uuidString)"
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("a.png").path
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "--json", "s3://\(bucket)/a.jpg", out], environment: env)
        #expect(result.status == 77)
        #expect(result.stdoutText.contains("SignatureDoesNotMatch"), "\(result.stdoutText)")
        #expect(!result.stdoutText.contains(env["AWS_SECRET_ACCESS_KEY"]!) && !result.stderr.contains("wrong-secret"))
        #expect(!FileManager.default.fileExists(atPath: out))
        // A batch stops at the first such failure, with 77.
        let batch = try Catctl.run(
            [
                "batch", "--filter", "sepia", "--output-dir", try Fixtures.temporaryDirectory().path,
                "s3://\(bucket)/a.jpg",
            ],
            environment: env)
        #expect(batch.status == 77, "\(batch.stderr)")
        // No credentials at all: 77, naming the variables.
        var none = server.environment
        none["AWS_ACCESS_KEY_ID"] = ""
        let unset = try Catctl.run(["edit", "--filter", "sepia", "s3://\(bucket)/a.jpg", out], environment: none)
        #expect(unset.status == 77 && unset.stderr.contains("AWS_ACCESS_KEY_ID"), "\(unset.stderr)")
    }

    @Test func missingBucketsAndKeysAreClearFailures() throws {
        let bucket = try server.makeBucket()
        try server.put(Fixtures.path("jpeg/chelsea-420.jpg"), bucket: bucket, key: "a.jpg")
        let env = server.environment
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("a.png").path
        let noKey = try Catctl.run(["edit", "--filter", "sepia", "s3://\(bucket)/none.jpg", out], environment: env)
        #expect(noKey.status == 66, "\(noKey.stderr)")
        let noBucket = try Catctl.run(
            [
                "edit", "--filter", "sepia", "s3://no-such-bucket-\(UUID().uuidString.prefix(6).lowercased())/a.jpg",
                out,
            ],
            environment: env)
        #expect(noBucket.status == 66 && noBucket.stderr.contains("does not exist"), "\(noBucket.stderr)")
        let noOutputBucket = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://\(bucket)/a.jpg", "s3://no-such-bucket-zz/a.png"], environment: env)
        #expect(
            noOutputBucket.status == 73 && noOutputBucket.stderr.contains("does not exist"), "\(noOutputBucket.stderr)")
        let prefix = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://\(bucket)/a.jpg", "s3://\(bucket)/dir/"], environment: env)
        #expect(prefix.status == 64, "\(prefix.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

/// The same paths against a second S3 implementation, JuiceFS's gateway, which checks each
/// upload's x-amz-content-sha256 against its body: catctl's hashes, signatures and
/// multipart uploads hold there too.
@Suite("catctl and object storage (JuiceFS gateway)", .serialized)
struct JuiceFSGatewayTests {
    @Test func editAndMultipartUploadsPassASecondServersChecks() throws {
        let server = try S3TestServer.juiceFS()
        defer { server.stop() }
        let bucket = try server.makeBucket()
        let env = server.environment
        let photo = Fixtures.path("cats/01-sol-nascente-siamese.jpg")
        let up = try Catctl.run(
            ["edit", "--filter", "sepia", photo, "s3://\(bucket)/in/cat 1+1.jpg"], environment: env)
        #expect(up.status == 0, "\(up.stderr)")
        let local = try Fixtures.temporaryDirectory()
        let down = try Catctl.run(
            ["edit", "--filter", "mono", "s3://\(bucket)/in/cat 1+1.jpg", local.path + "/back.png"], environment: env)
        #expect(down.status == 0, "\(down.stderr)")
        // Two parts of 5 MiB, each hashed and checked.
        var multipart = env
        multipart["CATCTL_S3_PART_SIZE"] = String(5 << 20)
        let tiff = try Catctl.run(
            ["edit", "--filter", "sepia", "--compression", "none", photo, "s3://\(bucket)/cat.tif"],
            environment: multipart)
        #expect(tiff.status == 0, "\(tiff.stderr)")
        let onDisk = try Catctl.run([
            "edit", "--filter", "sepia", "--compression", "none", photo, local.path + "/cat.tif",
        ])
        #expect(onDisk.status == 0)
        #expect(
            try server.get(bucket: bucket, key: "cat.tif") == Data(contentsOf: local.appendingPathComponent("cat.tif")))
        let listed = try Catctl.run(["batch", "--list", "--recursive", "s3://\(bucket)/"], environment: env)
        #expect(listed.stdoutLines == ["s3://\(bucket)/cat.tif", "s3://\(bucket)/in/cat 1+1.jpg"], "\(listed.stderr)")
        var wrong = env
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let refused = try Catctl.run(
            ["edit", "--filter", "mono", "s3://\(bucket)/cat.tif", local.path + "/x.png"], environment: wrong)
        #expect(refused.status == 77 && refused.stderr.contains("SignatureDoesNotMatch"), "\(refused.stderr)")
    }
}
