import CatImageIO
import Foundation
import TestSupport
import Testing

/// The live scenes (`load --interactive`, `edit --interactive`) driven in a real terminal:
/// tmux types the keys and reads the screen back, as a person would (issue 12).
@Suite("Live scenes in a terminal (tmux)", .enabled(if: TmuxSession.available), .serialized)
struct InteractiveCommandTests {
    static var catctl: String { Catctl.executable?.path ?? "catctl" }
    /// The bundled cat, copied into each session's folder (the program runs there).
    static let bundled = Fixtures.path("../../Resources/cats/chelsea.jpg")
    static let chelsea = "chelsea.jpg"

    /// A terminal running catctl with `arguments`, in a new folder holding chelsea.jpg.
    func session(
        _ arguments: [String], columns: Int = 100, rows: Int = 32, environment: [String: String] = [:],
        fixtures: [String] = []
    ) throws -> TmuxSession {
        let dir = try Fixtures.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.bundled, toPath: dir.appendingPathComponent(Self.chelsea).path)
        for fixture in fixtures {
            try FileManager.default.copyItem(
                atPath: Fixtures.path(fixture),
                toPath: dir.appendingPathComponent(URL(fileURLWithPath: fixture).lastPathComponent).path)
        }
        return try TmuxSession(
            [Self.catctl] + arguments, columns: columns, rows: rows, environment: environment, directory: dir)
    }

    /// Every Edit Cat key, then a save that must be the very file `catctl edit` writes.
    @Test func editKeysAndASaveEqualToCatctlEdit() throws {
        let tmux = try session(["edit", "-i", Self.chelsea])
        try tmux.wait(for: "chain: (none)  + mono")
        try tmux.wait(for: "catctl edit · \(Self.chelsea) · 451x300 jpeg")
        try tmux.send("Right")
        try tmux.wait(for: "+ sepia:1 ")
        try tmux.send("Down")  // sepia 1 → 0.9
        try tmux.wait(for: "+ sepia:0.9 ")
        try tmux.send("Up", "k", "j")  // 1, 1 (the most), 0.9
        try tmux.wait(for: "+ sepia:0.9 ")
        try tmux.send("Enter")  // the preview shows the chain as it is now
        try tmux.wait(for: "chain: sepia:0.9  · 451x300")
        try tmux.send("l", "l", "h")  // invert, chrome, back to invert
        try tmux.wait(for: "chain: sepia:0.9  + invert:1")
        try tmux.send("Left")
        try tmux.wait(for: "chain: sepia:0.9  + sepia:0.9")
        try tmux.send("Right", "Enter")
        try tmux.wait(for: "chain: sepia:0.9 → invert:1  · 451x300")
        try tmux.send("BSpace")
        try tmux.wait(for: "chain: sepia:0.9  · 451x300")
        // Blur, 15 filters on: the preview scales its sigma; ↑ adds 0.5.
        for _ in 0..<12 { try tmux.send("Right") }
        try tmux.wait(for: "+ blur:3 ")
        try tmux.send("Up")
        try tmux.wait(for: "+ blur:3.5 ")
        try tmux.send("Enter")
        try tmux.wait(for: "chain: sepia:0.9 → blur:3.5  · 451x300")

        try tmux.send("g")
        try tmux.wait(for: "gallery · g or Esc: back")
        try tmux.wait(for: "hue-rotate:90")  // a frame may be caught half written: wait, do not look once
        try tmux.send("g")
        try tmux.waitUntil { !$0.contains("gallery ·") && $0.contains("? keys") }
        try tmux.send("?")
        try tmux.wait(for: "catctl edit — keys")
        try tmux.send("x")  // any key: back
        try tmux.waitUntil { !$0.contains("— keys") && $0.contains("chain: sepia:0.9 → blur:3.5") }

        try tmux.send("s")
        try tmux.wait(for: "save sepia:0.9 → blur:3.5 as: chelsea-sepia-blur.jpg")
        try tmux.send("C-u")
        try tmux.waitUntil { $0.contains("as: █") }
        try tmux.type("live.png")
        try tmux.send("Enter")
        try tmux.wait(for: "saved live.png: 451x300, sepia:0.9 → blur:3.5")
        try tmux.send("q")
        #expect(try tmux.exitStatus() == 0)
        let settings = try tmux.terminalSettings()
        #expect(settings.before == settings.after)

        let expected = tmux.directory.appendingPathComponent("expected.png").path
        let edit = try Catctl.run(["edit", "--filter", "sepia:0.9", "--filter", "blur:3.5", Self.bundled, expected])
        #expect(edit.status == 0, "\(edit.stderr)")
        let saved = try Data(contentsOf: tmux.directory.appendingPathComponent("live.png"))
        #expect(saved == (try Data(contentsOf: URL(fileURLWithPath: expected))))
    }

    /// Issue 35 end to end: a wheel report changes a value; a caption typed with a
    /// multi-byte name and an escape sequence in it (the sequence's bytes are dropped,
    /// never drawn), undone and redone; a 4:5 crop placed on the cat and applied; `q`
    /// asks before losing it; the save is the very file `catctl edit` writes for the
    /// equivalent chain.
    @Test func captionUndoCropAndSaveEqualToCatctlEdit() throws {
        let tmux = try session(["edit", "-i", Self.chelsea])
        try tmux.wait(for: "chain: (none)  + mono")
        try tmux.send("Right")
        try tmux.wait(for: "+ sepia:1 ")
        try tmux.type("\u{1B}[<65;40;10M")  // the wheel, down, as a terminal reports it
        try tmux.wait(for: "+ sepia:0.9 ")
        try tmux.send("t")
        try tmux.wait(for: "caption: █")
        try tmux.type("Chélsea 猫 \u{1B}[31mcat")
        try tmux.wait(for: "caption: Chélsea 猫 cat█")
        try tmux.send("Enter")
        try tmux.wait(for: "chain: caption:Chélsea 猫 cat")
        try tmux.send("u")
        try tmux.waitUntil { $0.contains("chain: (none)") && $0.contains("undid: add caption:Chélsea 猫 cat") }
        try tmux.send("U")
        try tmux.wait(for: "redid: add caption:Chélsea 猫 cat")
        try tmux.send("c", "c")
        let screen = try tmux.wait(for: "crop 4:5: 240x300+")
        let spec = try #require(screen.firstMatch(of: /crop 4:5: (240x300\+\d+\+0)/)).1
        try tmux.send("Enter")
        try tmux.wait(for: "chain: caption:Chélsea 猫 cat → crop:\(spec)  · 451x300 → 240x300")
        try tmux.send("q")
        try tmux.wait(for: "unsaved: s save, q quit anyway")
        try tmux.send("s")
        try tmux.wait(for: "as: chelsea-caption-crop.jpg█")
        try tmux.send("C-u")
        try tmux.type("live.png")
        try tmux.send("Enter")
        try tmux.wait(for: "saved live.png: 240x300")
        try tmux.send("q")
        #expect(try tmux.exitStatus() == 0)
        let settings = try tmux.terminalSettings()
        #expect(settings.before == settings.after)

        let expected = tmux.directory.appendingPathComponent("expected.png").path
        let edit = try Catctl.run([
            "edit", "--filter", "caption:Chélsea 猫 cat", "--filter", "crop:\(spec)", Self.bundled, expected,
        ])
        #expect(edit.status == 0, "\(edit.stderr)")
        let saved = try Data(contentsOf: tmux.directory.appendingPathComponent("live.png"))
        #expect(saved == (try Data(contentsOf: URL(fileURLWithPath: expected))))
        let json = try Catctl.run([
            "edit", "--json", "--force", "--filter", "crop:\(spec)", Self.bundled, expected,
        ])
        let parts = spec.split(whereSeparator: { "x+".contains($0) }).map(String.init)
        #expect(
            json.stdoutText.contains("\"crop\":{\"x\":\(parts[2]),\"y\":0,\"width\":240,\"height\":300}"),
            "\(json.stdoutText)")
    }

    /// Issue 42, finding 12: a paste or a burst of keys was taken one key and one redraw at a
    /// time (5,000 characters: Ctrl-C acted after 46 s), and outside the caption its
    /// characters ran as commands. A paste is text: the caption takes it whole (up to its
    /// 1000 characters), elsewhere it is left out; Ctrl-C ends the app whatever is queued.
    @Test func aPasteIsTextAndCtrlCActsAheadOfIt() throws {
        let tmux = try session(["edit", "-i", Self.chelsea])
        try tmux.wait(for: "chain: (none)  + mono")
        // Commands, pasted: none runs (a, Enter and q would add, add and quit).
        try tmux.paste(String(repeating: "a\nq", count: 300))
        try tmux.wait(for: "pasted text left out")
        // What comes within 50 ms of a paste is pasted text too (an end mark inside pasted
        // text would make the rest keys): a person's next key comes later.
        Thread.sleep(forTimeInterval: 0.2)
        // Typed too fast to be typing (no paste marks): the same.
        try tmux.type(String(repeating: "+u", count: 40))
        Thread.sleep(forTimeInterval: 0.2)
        try tmux.send("Right")
        try tmux.wait(for: "+ sepia:1 ")
        #expect(try tmux.screen().contains("chain: (none)"))
        try tmux.send("t")
        try tmux.wait(for: "caption: █")
        try tmux.paste(String(repeating: "猫", count: 5000))
        try tmux.waitUntil("the caption, cut at 1000 characters") { $0.contains("猫猫█") }
        Thread.sleep(forTimeInterval: 0.2)
        try tmux.send("Escape")
        try tmux.wait(for: "chain: (none)")
        // A flood of keys, then Ctrl-C: the app ends with 130 without taking the rest.
        try tmux.type(String(repeating: "+-", count: 2000))
        try tmux.send("C-c")
        #expect(try tmux.exitStatus() == 130)
        let settings = try tmux.terminalSettings()
        #expect(settings.before == settings.after)
    }

    /// An animated GIF plays at once (the status line counts its frames), `p` pauses and
    /// plays it again, and a save keeps every frame.
    @Test func anAnimationPlaysAndPauses() throws {
        let tmux = try session(["edit", "-i", "anim-delays-loop.gif"], fixtures: ["gif/anim-delays-loop.gif"])
        try tmux.wait(for: "5 frames")
        for n in 1...5 { try tmux.wait(for: "frame \(n)/5") }
        try tmux.send("p")
        let paused = try tmux.wait(for: "paused (p plays)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try tmux.screen().contains("paused (p plays)") && paused.contains("paused"))
        try tmux.send("p")
        try tmux.waitUntil { $0.contains("/5") && !$0.contains("paused") }
        try tmux.send("s")
        try tmux.wait(for: "as: anim-delays-loop-2.gif█")
        try tmux.send("Enter")
        try tmux.wait(for: "saved anim-delays-loop-2.gif: 48x32, 5 frames")
        try tmux.send("q")
        #expect(try tmux.exitStatus() == 0)
    }

    /// A save prompt suggests a free name, Esc gives up, an unknown extension is an error
    /// shown on the status line, and the scene goes on.
    @Test func savePromptEscapeAndABadName() throws {
        let tmux = try session(["edit", "-i", "--filter", "sepia", Self.chelsea, "out.webp"])
        try tmux.wait(for: "chain: sepia  + mono")
        try tmux.send("s")
        try tmux.wait(for: "as: out.webp█")
        try tmux.send("Escape")
        try tmux.waitUntil { !$0.contains("as: out.webp") }
        try tmux.send("s")
        try tmux.wait(for: "as: out.webp█")
        try tmux.send("BSpace", "BSpace", "BSpace", "BSpace")
        try tmux.type("bmp")
        try tmux.send("Enter")
        try tmux.wait(for: "unknown output extension in 'out.bmp'")
        try tmux.send("s")
        try tmux.wait(for: "as: out.webp█")
        try tmux.send("Enter")
        try tmux.wait(for: "saved out.webp: 451x300, sepia")
        try tmux.send("C-c")
        #expect(try tmux.exitStatus() == 130)
        let settings = try tmux.terminalSettings()
        #expect(settings.before == settings.after)
        let webp = try ImageDecoder.decode(
            Array(try Data(contentsOf: tmux.directory.appendingPathComponent("out.webp"))), name: "out.webp")
        #expect(webp.format == .webp && webp.pixels.width == 451)
    }

    /// SIGTERM and SIGHUP end the scene with 130 and the terminal as it was; a crash
    /// (SIGILL, what a failed Swift precondition raises on x86-64) gives it back too.
    @Test(arguments: [SIGTERM, SIGHUP, SIGILL])
    func signalsGiveTheTerminalBack(_ sig: Int32) throws {
        let tmux = try session(["edit", "-i", Self.chelsea])
        try tmux.wait(for: "chain: (none)")
        kill(try tmux.programPID(), sig)
        let status = try tmux.exitStatus()
        #expect(status == (sig == SIGILL ? 128 + SIGILL : 130))
        let settings = try tmux.terminalSettings()
        #expect(settings.before == settings.after)
        // The main screen is back: the shell's line is there, the scene is gone.
        let screen = try tmux.wait(for: "EXITED")
        #expect(!screen.contains("chain:"))
    }

    /// Every mode keeps its state through a resize and draws for the new size: the crop
    /// frame, the zoom, the caption being typed.
    @Test func modesKeepTheirStateThroughAResize() throws {
        let tmux = try session(["edit", "-i", Self.chelsea], columns: 100, rows: 32)
        try tmux.wait(for: "chain: (none)")
        try tmux.send("c", "c")
        try tmux.wait(for: "crop 4:5: 240x300+")
        try tmux.resize(columns: 80, rows: 24)
        try tmux.waitUntil("the crop on row 23") { screen in
            let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return rows.count >= 24 && rows[22].hasPrefix("crop 4:5: 240x300+")
        }
        try tmux.send("Escape")
        try tmux.waitUntil { !$0.contains("crop 4:5") }
        try tmux.send("z")
        try tmux.wait(for: "1:1 at ")
        try tmux.resize(columns: 120, rows: 40)
        try tmux.waitUntil("the zoom on row 39") { screen in
            let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return rows.count >= 40 && rows[38].hasPrefix("1:1 at ")
        }
        try tmux.send("z", "t")
        try tmux.wait(for: "caption: █")
        try tmux.type("hi")
        try tmux.resize(columns: 90, rows: 28)
        try tmux.waitUntil("the caption on row 28") { screen in
            let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return rows.count >= 28 && rows[27].hasPrefix("caption: hi█")
        }
        try tmux.send("Escape", "q")
        #expect(try tmux.exitStatus() == 0)
    }

    /// A resize redraws at the new size: the key line is on the new last row.
    @Test func aResizeRedraws() throws {
        let tmux = try session(["edit", "-i", Self.chelsea], columns: 100, rows: 32)
        try tmux.wait(for: "chain: (none)")
        try tmux.resize(columns: 80, rows: 24)
        try tmux.waitUntil("the key line on row 24") { screen in
            let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return rows.count >= 24 && rows[23].hasPrefix("←→↑↓ pick") && rows[22].hasPrefix("chain: (none)")
        }
        try tmux.send("q")  // while the pictures for the new size may still be in the making
        let status = try tmux.exitStatus(), screen = try tmux.screen()
        #expect(status == 0, "\(screen)")
    }

    /// Load Cat from the bundled cats: next, edit (Esc back), save as is, quit.
    @Test func loadNextEditBackSave() throws {
        let tmux = try TmuxSession([Self.catctl, "load", "-i", "--provider", "folder"])
        try tmux.wait(for: "catctl load · cat 1")
        try tmux.wait(for: "folder cat chelsea  451x300")
        try tmux.send("n")
        try tmux.wait(for: "catctl load · cat 2")
        try tmux.send("e")
        try tmux.wait(for: "chain: (none)  + mono")
        try tmux.wait(for: "Esc back  q quit")
        try tmux.send("Right", "Enter")
        try tmux.wait(for: "chain: sepia:1")
        try tmux.send("Escape")
        try tmux.wait(for: "n next  Esc cancel  e edit")
        try tmux.send("Space")  // Space and Enter do what n and e do
        try tmux.wait(for: "catctl load · cat 3")
        try tmux.send("Enter")
        try tmux.wait(for: "chain: (none)  + mono")
        try tmux.send("Escape")
        try tmux.wait(for: "n next  Esc cancel  e edit")
        try tmux.send("s")
        try tmux.wait(for: "save the cat as: cat-chelsea.jpg█")
        try tmux.send("Enter")
        try tmux.wait(for: "saved cat-chelsea.jpg")
        try tmux.send("?")
        try tmux.wait(for: "catctl load — keys")
        try tmux.send("Space", "q")
        #expect(try tmux.exitStatus() == 0)
        let settings = try tmux.terminalSettings()
        #expect(settings.before == settings.after)
        // Same format: the bytes as they were.
        let saved = try Data(contentsOf: tmux.directory.appendingPathComponent("cat-chelsea.jpg"))
        #expect(saved == (try Data(contentsOf: URL(fileURLWithPath: Self.bundled))))
    }

    /// Against the loopback server: Esc cancels a slow download; a failing server shows
    /// its error on the status line and the scene stays usable.
    @Test func loadCancelAndFailureStayUsable() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let slow = try TmuxSession([
            Self.catctl, "load", "-i", "--provider", "thecatapi", "--endpoint", server.baseURL + "/slow",
        ])
        try slow.wait(for: "downloading")
        try slow.send("Escape")
        try slow.wait(for: "cancelled; n loads another cat")
        try slow.send("q")
        #expect(try slow.exitStatus() == 0)

        let failing = try TmuxSession([
            Self.catctl, "load", "-i", "--provider", "thecatapi", "--endpoint", server.baseURL + "/status500",
            "--retries", "0",
        ])
        try failing.wait(for: "500")
        try failing.send("n")  // again: still answers
        try failing.wait(for: "500")
        try failing.send("?")
        try failing.wait(for: "catctl load — keys")
        try failing.send("q", "q")
        #expect(try failing.exitStatus() == 0)
        let settings = try failing.terminalSettings()
        #expect(settings.before == settings.after)
    }

    /// An INPUT that cannot be opened: the terminal is given back, then the error and its code.
    @Test func anInputThatCannotBeOpened() throws {
        let tmux = try session(["edit", "-i", "missing.jpg"])
        #expect(try tmux.exitStatus() == 66)
        let screen = try tmux.wait(for: "EXITED")
        #expect(screen.contains("catctl: error:") && screen.contains("missing.jpg"), "\(screen)")
        let settings = try tmux.terminalSettings()
        #expect(settings.before == settings.after)
    }

    /// Without a terminal: a usage error that says so.
    @Test func needsATerminal() throws {
        for arguments in [["edit", "-i", Self.chelsea], ["load", "-i", "--provider", "folder"]] {
            let result = try Catctl.run(arguments.map { $0 == Self.chelsea ? Self.bundled : $0 })
            #expect(result.status == 64)
            #expect(result.stderr.contains("--interactive needs a terminal"), "\(result.stderr)")
        }
    }

    /// The forced graphics modes in a live scene, read from a pseudo-terminal (`script`):
    /// each mode's escape sequence; kitty pictures deleted (`a=d`) before each redraw.
    @Test(arguments: [("kitty", "\u{1B}_G"), ("iterm", "\u{1B}]1337;File="), ("sixel", "\u{1B}P")])
    func forcedGraphicsModes(_ mode: String, _ start: String) throws {
        let dir = try Fixtures.temporaryDirectory()
        let log = dir.appendingPathComponent("typescript")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = [
            "-q", "-f", "-e", "-c", "\(Self.catctl) edit -i --graphics \(mode) \(Self.bundled)", log.path,
        ]
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "100"
        env["LINES"] = "30"
        env["TERM"] = "xterm-256color"
        env.removeValue(forKey: "TMUX")
        process.environment = env
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        func typescript() -> String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }
        let end = Date().addingTimeInterval(20)
        while Date() < end, !typescript().contains("chain: (none)") { Thread.sleep(forTimeInterval: 0.05) }
        input.fileHandleForWriting.write(Data("l".utf8))
        while Date() < end, !typescript().contains("+ sepia:1") { Thread.sleep(forTimeInterval: 0.05) }
        input.fileHandleForWriting.write(Data("q".utf8))
        process.waitUntilExit()
        let out = typescript()
        #expect(process.terminationStatus == 0, "\(out.suffix(300))")
        #expect(out.contains(start), "\(mode)")
        #expect(out.contains("+ sepia:1"))
        if mode == "kitty" { #expect(out.components(separatedBy: "\u{1B}_Ga=d\u{1B}\\").count > 2) }
        #expect(out.hasSuffix("\u{1B}[?1049l") || out.contains("\u{1B}[?25h\u{1B}[?1049l"))
    }
}
