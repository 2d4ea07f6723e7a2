import Foundation
import TestSupport
import Testing

/// `catctl detect`: a line per cat (with its face) or face, or one JSON line per image
/// (docs/CLI.md).
@Suite("catctl detect, end to end")
struct DetectCommandTests {
    let siamese = Fixtures.path("cats/01-sol-nascente-siamese.jpg")

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func jsonGivesEachImagesFacesInItsPixels() throws {
        let result = try Catctl.run(["detect", "--json", siamese, Fixtures.path("photos/chelsea.png")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 2)
        let first = try json(result.stdoutLines[0])
        #expect(first["event"] as? String == "detected" && first["input"] as? String == siamese)
        #expect(first["width"] as? Int == 1600 && first["height"] as? Int == 1123)
        let faces = try #require(first["faces"] as? [[String: Any]])
        #expect(faces.count == 1)
        // The hand-marked face is 540,380 460x365 (faces.json).
        let x = try #require(faces.first?["x"] as? Int), y = try #require(faces.first?["y"] as? Int)
        let w = try #require(faces.first?["width"] as? Int), score = try #require(faces.first?["score"] as? Double)
        #expect(abs(x + w / 2 - 770) < 60 && abs(y + w / 2 - 562) < 60 && w > 300 && w < 600, "\(faces)")
        #expect(score > 0 && score < 1)
        // The cat: its box holds the face, and carries it.
        let cats = try #require(first["cats"] as? [[String: Any]])
        #expect(cats.count == 1, "\(cats)")
        let cat = try #require(cats.first)
        let (cx, cy) = (try #require(cat["x"] as? Int), try #require(cat["y"] as? Int))
        let (cw, ch) = (try #require(cat["width"] as? Int), try #require(cat["height"] as? Int))
        #expect(cx <= 540 && cy <= 380 && cx + cw >= 1000 && cy + ch >= 745, "\(cat)")
        #expect((cat["face"] as? [String: Any])?["x"] as? Int == x)
        #expect(try #require(cat["score"] as? Double) > 0.5)
        #expect(try json(result.stdoutLines[1])["event"] as? String == "detected")
    }

    @Test func plainLinesAndFailuresPerImage() throws {
        let dir = try Fixtures.temporaryDirectory()
        let grey = dir.appendingPathComponent("grey.png").path
        // A flat grey picture: no cat.
        let made = try Catctl.run(["edit", "--filter", "grayscale", "--filter", "brightness:0", siamese, grey])
        #expect(made.status == 0, "\(made.stderr)")
        let missing = dir.appendingPathComponent("missing.jpg").path
        let result = try Catctl.run(["detect", siamese, missing, grey])
        #expect(result.status == 66, "the first failure's status")
        #expect(result.stdoutLines.count == 2)
        #expect(result.stdoutLines[0].hasPrefix("\(siamese): cat at "), "\(result.stdoutText)")
        #expect(result.stdoutLines[0].contains(", face at "), "\(result.stdoutText)")
        #expect(result.stdoutLines[1] == "\(grey): no cat")
        #expect(result.stderr.contains("missing.jpg"))
        let json = try Catctl.run(["detect", "--json", missing])
        #expect(json.status == 66)
        let line = try self.json(try #require(json.stdoutLines.last))
        #expect(
            line["event"] as? String == "error" && line["input"] as? String == missing && line["code"] as? Int == 66)
    }

    /// Strips a pixel wide or high get an answer (the detectors read fixed-size copies).
    @Test func stripsGetAnAnswer() throws {
        let dir = try Fixtures.temporaryDirectory()
        for (w, h) in [(1, 100_000), (100_000, 1)] {
            let strip = dir.appendingPathComponent("strip-\(w)x\(h).png").path
            let made = try Catctl.run(["edit", "--filter", "resize:\(w)x\(h)!", siamese, strip])
            #expect(made.status == 0, "\(made.stderr)")
            let result = try Catctl.run(["detect", "--json", strip])
            #expect(result.status == 0, "\(result.stderr)")
            let line = try json(try #require(result.stdoutLines.first))
            #expect(line["width"] as? Int == w && line["height"] as? Int == h && line["cats"] is [Any])
        }
    }

    @Test func usageAndLimits() throws {
        #expect(try Catctl.run(["detect"]).status == 64)
        let limited = try Catctl.run(["detect", "--max-pixels", "1000", siamese])
        #expect(limited.status == 65, "\(limited.stderr)")
    }

    /// `crop:...:cat` reports the window it cut, and it holds the marked face.
    @Test func catGravityReportsAWindowThatHoldsTheFace() throws {
        let dir = try Fixtures.temporaryDirectory()
        let result = try Catctl.run([
            "edit", "--json", "--filter", "cover:540x960:cat", siamese, dir.appendingPathComponent("story.jpg").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let crop = try #require(try json(result.stdoutLines.last!)["crop"] as? [String: Int])
        let x = try #require(crop["x"]), w = try #require(crop["width"])
        #expect(x <= 540 && x + w >= 1000, "the face spans 540-1000: \(crop)")
    }
}
