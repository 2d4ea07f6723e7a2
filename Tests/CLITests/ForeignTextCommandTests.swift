import CatImageIO
import Foundation
import TestSupport
import Testing

/// No text from outside reaches the terminal raw: a hostile loopback cat API, hostile file
/// names and an image written at a terminal, end to end through the real binary.
@Suite("Foreign text is shown, never obeyed", .serialized)
struct ForeignTextCommandTests {
    static let payload = HostileCatServer.payload

    /// Plain output (stdout not a terminal): the cat's id, breed, temperament shown with
    /// every control made visible; the error lines that quote a URL or a Content-Type too.
    @Test func plainLoadShowsEveryFieldNeutralised() throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        let dir = try Fixtures.temporaryDirectory()
        let ok = try Catctl.run([
            "load", "--endpoint", server.baseURL + "/fields", "-o", dir.path + "/cat.jpg", "--no-preview",
        ])
        #expect(ok.status == 0, "\(ok.stderr)")
        let shown = ok.stdoutText + ok.stderr
        #expect(HostileCatServer.rawControls(in: shown).isEmpty, "\(HostileCatServer.rawControls(in: shown))")
        #expect(ok.stdoutText.contains(#"id: cat\033]0;PWNED-TITLE\a\033]52;c;cHduZWQ=\a\033[2J\u009B31m"#))
        #expect(ok.stdoutText.contains(#"\000x\001x"#) && ok.stdoutText.contains(#"\u202Ex\u2066x"#))
        #expect(ok.stdoutText.contains("breed: cat\\033]0;") && ok.stdoutText.contains("temperament: cat\\033]0;"))

        for route in ["/bad-url", "/content-type"] {
            let failed = try Catctl.run(["load", "--endpoint", server.baseURL + route, "--no-preview"])
            #expect(failed.status != 0)
            #expect(failed.stderr.contains(#"\033]0;PWNED-TITLE\a"#), "\(route): \(failed.stderr)")
            #expect(HostileCatServer.rawControls(in: failed.stderr).isEmpty, "\(route): \(failed.stderr)")
        }
    }

    /// `--json`: every control escaped, C1, bidi and U+2028/2029 included, and the JSON
    /// still gives back the exact text the server sent.
    @Test func jsonEscapesEveryControlAndKeepsTheText() throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        let dir = try Fixtures.temporaryDirectory()
        let result = try Catctl.run([
            "load", "--endpoint", server.baseURL + "/fields", "-o", dir.path + "/cat.jpg", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(HostileCatServer.rawControls(in: result.stdoutText).isEmpty)
        #expect(result.stdoutText.contains(#"\u009b31m"#) && result.stdoutText.contains(#"\u2028x"#))
        let loaded = try #require(result.stdoutLines.last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(loaded.utf8)) as? [String: Any])
        #expect(object["id"] as? String == Self.payload)
        #expect(object["breed"] as? String == Self.payload)
        #expect(object["temperament"] as? String == Self.payload)
        let failed = try Catctl.run(["load", "--endpoint", server.baseURL + "/content-type", "--json"])
        #expect(HostileCatServer.rawControls(in: failed.stdoutText + failed.stderr).isEmpty)
    }

    /// On a terminal (a pty): the title, clipboard and clear-screen sequences never reach it,
    /// only their visible form; the picture's own escape codes still do.
    @Test func terminalLoadNeverPassesTheServersEscapes() throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        let command = "\(Self.catctl) load --graphics symbols --endpoint \(server.baseURL)/fields"
        let (status, out) = try PtySession.run(command)
        #expect(status == 0, "\(out.suffix(400))")
        Self.expectNoServerEscapes(out)
        #expect(out.contains(#"cat\033]0;PWNED-TITLE"#))
        #expect(out.contains("\u{1B}[38;"), "the picture is still drawn in colour")
    }

    /// The live Load Cat scene shows the same title neutralised.
    @Test func liveLoadNeverPassesTheServersEscapes() throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        let session = try PtySession(
            "\(Self.catctl) load -i --graphics symbols --endpoint \(server.baseURL)/fields")
        #expect(session.wait(for: "PWNED-TITLE"), "\(session.typescript.suffix(400))")
        session.type("q")
        #expect(session.finish() == 0)
        Self.expectNoServerEscapes(session.typescript, live: true)
        #expect(session.typescript.contains(#"\033]0;PWNED-TITLE"#))
    }

    /// A batch input named with escape sequences, and one with a newline: the plain output
    /// stays one path a line, each shown with its controls visible; JSON escapes them.
    @Test func hostileFileNamesInBatchOutput() throws {
        let dir = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let names = ["esc\u{1B}]0;TITLE\u{07}.png", "two\nlines.png", "rtl\u{202E}gnp.png"]
        for name in names {
            try FileManager.default.copyItem(
                atPath: Fixtures.path("photos/chelsea.png"), toPath: input.appendingPathComponent(name).path)
        }
        let out = dir.appendingPathComponent("out").path
        let plain = try Catctl.run(["batch", "--filter", "mono", "--output-dir", out, input.path])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdoutLines.count == 3, "one line a file: \(plain.stdoutLines)")
        #expect(HostileCatServer.rawControls(in: plain.stdoutText + plain.stderr).isEmpty)
        #expect(plain.stdoutText.contains(#"esc\033]0;TITLE\a.png"#))
        #expect(plain.stdoutText.contains(#"two\nlines.png"#) && plain.stdoutText.contains(#"rtl\u202Egnp.png"#))
        for name in names { #expect(FileManager.default.fileExists(atPath: out + "/" + name), "\(name) written") }

        let json = try Catctl.run(["batch", "--filter", "mono", "--output-dir", out + "2", "--json", input.path])
        #expect(json.status == 0)
        #expect(HostileCatServer.rawControls(in: json.stdoutText).isEmpty)
        #expect(json.stdoutText.contains(#"esc\u001b]0;TITLE\u0007.png"#) && json.stdoutText.contains(#"\u202e"#))
    }

    /// An argument that is a file name with escapes: the error quoting it is neutralised.
    @Test func errorsQuotingAFileNameAreNeutralised() throws {
        let result = try Catctl.run(["edit", "--filter", "sepia", "no\u{1B}]0;TITLE\u{07}.png", "/tmp/x.png"])
        #expect(result.status == 66)
        #expect(result.stderr.contains(#"no\033]0;TITLE\a.png"#), "\(result.stderr)")
        #expect(HostileCatServer.rawControls(in: result.stderr).isEmpty)
    }

    /// Image bytes are never written to a terminal unless asked: `edit IN -` and
    /// `load -o -` on a terminal are 64 and write nothing; --force writes them.
    @Test func imageBytesAreNotWrittenToATerminal() throws {
        let cat = PtySession.quote(Fixtures.path("metadata/meta.png"))
        let refused = try PtySession.run("\(Self.catctl) edit --filter sepia \(cat) -")
        #expect(refused.status == 64, "\(refused.output)")
        #expect(refused.output.contains("refusing to write image data to a terminal; redirect it or give --force"))
        #expect(!refused.output.contains("\u{89}PNG") && !refused.output.contains("IHDR"))
        let load = try PtySession.run("\(Self.catctl) load --provider folder -o -")
        #expect(load.status == 64, "\(load.output)")
        let device = try PtySession.run("\(Self.catctl) edit --filter sepia \(cat) /dev/stdout --format png")
        #expect(device.status == 64, "a terminal reached through /dev/stdout: \(device.output)")
        let forced = try PtySession.run("\(Self.catctl) edit --force --filter sepia \(cat) -")
        #expect(forced.status == 0, "--force writes them")
        #expect(forced.output.contains("PNG") && forced.output.contains("IHDR"))
    }

    /// `live`: a live scene clears its own screen (ESC [2J) before each frame.
    static func expectNoServerEscapes(
        _ out: String, live: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for raw in ["\u{1B}]0;", "\u{1B}]52;", "\u{07}", "\u{9B}", "\u{202E}", "\u{2066}"] + (live ? [] : ["\u{1B}[2J"])
        {
            #expect(
                !out.contains(raw), "raw \(raw.unicodeScalars.map { $0.value }) on the terminal",
                sourceLocation: sourceLocation)
        }
    }

    static var catctl: String { PtySession.quote(Catctl.executable?.path ?? "catctl") }
}

extension ForeignTextCommandTests {
    /// The live Edit Cat's title bar names the input: a name with escapes is shown neutralised.
    @Test func liveEditTitleShowsAHostileNameNeutralised() throws {
        let dir = try Fixtures.temporaryDirectory()
        let name = dir.path + "/esc\u{1B}]0;PWNED-TITLE\u{07}.png"
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/chelsea.png"), toPath: name)
        let session = try PtySession("\(Self.catctl) edit -i --graphics symbols \(PtySession.quote(name))")
        #expect(session.wait(for: #"esc\033]0;PWNED-TITLE\a.png"#), "\(session.typescript.suffix(300))")
        session.type("q")
        #expect(session.finish() == 0)
        Self.expectNoServerEscapes(session.typescript, live: true)
    }
}
