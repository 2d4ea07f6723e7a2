import Foundation
import TestSupport
import Testing

@Suite("catctl bench, end to end")
struct BenchCommandTests {
    @Test func jsonHasTheDocumentedShape() throws {
        let result = try Catctl.run([
            "bench", "--json", "--size", "67x31", "--repetitions", "1", "--threads", "2",
            "--filter", "sepia", "--filter", "blur:3", "--filter", "hue-rotate:90deg",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutLines.last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["event"] as? String == "bench")
        #expect(json["width"] as? Int == 67 && json["height"] as? Int == 31 && json["threads"] as? Int == 2)
        #expect((json["baseline_copy_mpix_s"] as? Double ?? 0) > 0)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.map { $0["filter"] as? String } == ["sepia", "blur:3", "hue-rotate:90deg"])
        for r in results {
            #expect((r["mpix_s"] as? Double ?? 0) > 0)
            #expect((r["scalar_mpix_s"] as? Double ?? 0) > 0)
        }
    }

    /// `bench --live`: the live editor driven through its inputs, each input's time reported
    /// (the figure itself is the benchmark's business, not the test's).
    @Test func liveKeystrokes() throws {
        let cat = Fixtures.path("../../Resources/cats/chelsea.jpg")
        let result = try Catctl.run(["bench", "--live", cat, "--columns", "80", "--rows", "24", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutLines.last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["event"] as? String == "bench-live")
        #expect(json["width"] as? Int == 451 && json["columns"] as? Int == 80 && json["inputs"] as? Int == 40)
        for key in ["open_ms", "median_ms", "p95_ms", "max_ms", "full_image_ms"] {
            #expect((json[key] as? Double ?? -1) > 0, "\(key)")
        }
        let actions = try #require(json["actions"] as? [[String: Any]])
        #expect(
            actions.compactMap { $0["action"] as? String } == [
                "move", "value", "add", "remove", "undo", "redo", "original", "crop", "crop-move", "crop-apply",
                "caption-open", "caption-type", "caption-keep", "zoom-first", "pan", "zoom",
            ])
        for action in actions {
            #expect((action["p95_ms"] as? Double ?? -1) > 0 && (action["inputs"] as? Int ?? 0) > 0, "\(action)")
        }
        let text = try Catctl.run(["bench", "--live", cat, "--columns", "80", "--rows", "24"])
        #expect(text.stdoutText.contains("keystroke to frame, 40 inputs: median"))
        #expect(text.stdoutText.contains("caption-type"))
        let missing = try Catctl.run(["bench", "--live", "/nonexistent.jpg"])
        #expect(missing.status == 66 && missing.stderr.contains("/nonexistent.jpg"))
    }

    /// `bench --live --play`: an animation played for a while, its frames counted (the
    /// rate and the lateness are the benchmark's business); a still or no --live is 64.
    @Test func livePlay() throws {
        let gif = Fixtures.path("gif/anim-delays-loop.gif")
        let result = try Catctl.run([
            "bench", "--live", gif, "--play", "1", "--columns", "40", "--rows", "12", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutLines.last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["event"] as? String == "bench-live-play" && json["frames"] as? Int == 5)
        #expect((json["shown"] as? Int ?? 0) > 0 && (json["file_fps"] as? Double ?? 0) > 0)
        let still = try Catctl.run([
            "bench", "--live", Fixtures.path("../../Resources/cats/chelsea.jpg"), "--play", "1",
        ])
        #expect(still.status == 64 && still.stderr.contains("not an animation"))
        #expect(try Catctl.run(["bench", "--play", "1"]).status == 64)
    }

    @Test func tableAndErrors() throws {
        let table = try Catctl.run([
            "bench", "--size", "16x16", "--repetitions", "1", "--no-scalar", "--kernels", "baseline",
        ])
        #expect(table.status == 0)
        #expect(table.stdoutText.contains("copy (baseline)"))
        #expect(table.stdoutText.contains("vignette"))
        #if arch(x86_64)
            #expect(table.stdoutText.contains("kernels sse2"))
        #endif
        #expect(try Catctl.run(["bench", "--size", "12"]).status == 64)
        #expect(try Catctl.run(["bench", "--filter", "nope", "--size", "8x8"]).status == 64)
    }

    @Test func spatialFiltersThroughEdit() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("b.jpg").path
        let result = try Catctl.run([
            "edit", "--filter", "blur:2.5", "--filter", "sharpen:1", "--filter", "vignette",
            Fixtures.path("jpeg/chelsea-444.jpg"), out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
    }
}
