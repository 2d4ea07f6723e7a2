import Foundation
import TestSupport
import Testing

/// Hostile caption text, end to end: work and memory stay linear in the text (the caption's
/// limit is 1000 scalars), whatever the text holds. Each run under a kill timer and, without
/// the sanitizer, checked at 256 MiB resident.
@Suite("Caption text at its bounds")
struct CaptionTextCommandTests {
    static let hostile: [(String, String)] = [
        ("a letter with 500 combining marks", "a" + String(repeating: "\u{0301}", count: 500)),
        ("998 joiners between two cats", "🐈" + String(repeating: "\u{200D}", count: 998) + "🐈"),
        (
            "bidi controls nested 200 deep",
            String(repeating: "\u{202B}\u{2067}", count: 100) + "قطة cat"
                + String(repeating: "\u{202C}\u{2069}", count: 100)
        ),
        ("a thousand characters of many scripts", Self.manyScripts),
        ("500 lines, each a letter", String(repeating: "a\n", count: 499) + "a"),
    ]

    /// 1000 letters taken across the planes, a few from each block: a fallback-font search
    /// for each, most of them in no installed font.
    static let manyScripts: String = {
        var scalars = String.UnicodeScalarView()
        var value: UInt32 = 0x100
        while scalars.count < 1000, value < 0x3_0000 {
            if let s = Unicode.Scalar(value), s.properties.isAlphabetic { scalars.append(s) }
            value += 53
        }
        return String(scalars)
    }()

    @Test(arguments: hostile) func hostileTextStaysBounded(_ name: String, _ text: String) throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("out.png").path
        let result = try Catctl.runBounded(
            ["edit", "--filter", "caption-top:" + text, Fixtures.path("photos/chelsea.png"), out],
            memory: 1 << 30, seconds: 60)
        #expect(result.status == 0, "\(name): \(result.stderr.prefix(400))")
        #expect(FileManager.default.fileExists(atPath: out), "\(name)")
        #expect(Catctl.isSanitized || result.maxResidentKiB < 256 * 1024, "\(name): \(result.maxResidentKiB) KiB")
    }

    /// fontconfig prints on fd 2 by itself, with the names of files in it (here the config
    /// file named in FONTCONFIG_FILE, which holds a terminal title sequence): that never
    /// reaches the terminal raw, and the caption is still drawn.
    @Test func fontconfigsOwnPrintingIsKeptOff() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("out.png").path
        let result = try Catctl.run(
            ["edit", "--filter", "caption:猫", Fixtures.path("photos/chelsea.png"), out],
            environment: ["FONTCONFIG_FILE": dir.path + "/\u{1B}]0;pwned\u{07}.conf"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("Fontconfig"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// FONTCONFIG_FILE naming a FIFO or a device: fontconfig would read it for ever, so no
    /// fallback font is looked for; the caption is drawn, the missing character named.
    @Test func aFontconfigFileThatNeverEndsIsNotRead() throws {
        let dir = try Fixtures.temporaryDirectory()
        let fifo = dir.appendingPathComponent("fonts.conf").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for config in [fifo, "/dev/zero"] {
            let out = dir.appendingPathComponent("out.png").path
            let result = try Catctl.runBounded(
                ["edit", "--force", "--filter", "caption:猫", Fixtures.path("photos/chelsea.png"), out],
                memory: 1 << 30, seconds: 60, environment: ["FONTCONFIG_FILE": config])
            #expect(result.status == 0, "\(config): \(result.stderr)")
            #expect(result.stderr.contains("no installed font has 猫"), "\(config): \(result.stderr)")
            #expect(result.stderr.contains("FONTCONFIG_FILE is not a regular file"), "\(config): \(result.stderr)")
        }
    }

    /// A regular `FONTCONFIG_FILE` that includes a FIFO: fontconfig would open it and wait
    /// for a writer for ever; catctl waits 5 s for fontconfig, then draws without a fallback
    /// font, and says so.
    @Test func aFontconfigIncludeThatNeverEndsIsWaitedForAWhile() throws {
        let dir = try Fixtures.temporaryDirectory()
        let fifo = dir.appendingPathComponent("more.conf").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let config = dir.appendingPathComponent("fonts.conf").path
        try Data("<?xml version=\"1.0\"?>\n<fontconfig><include>\(fifo)</include></fontconfig>\n".utf8)
            .write(to: URL(fileURLWithPath: config))
        let out = dir.appendingPathComponent("out.png").path
        let result = try Catctl.runBounded(
            ["edit", "--filter", "caption:猫", Fixtures.path("photos/chelsea.png"), out],
            memory: 1 << 30, seconds: 60, environment: ["FONTCONFIG_FILE": config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("no installed font has 猫"), "\(result.stderr)")
        #expect(result.stderr.contains("did not answer within 5 s"), "not the package: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// A regular `FONTCONFIG_FILE` whose rules make a substitution take minutes (20,000 tests
    /// against 300,000 family names) is waited for 5 s, as its loading is. The same 300,000
    /// names overflowed the 8 MiB stack of the thread that sorted (fontconfig evaluates an
    /// edit's values recursively): SIGSEGV, no message, before fontconfig worked on a thread
    /// of its own with 128 MiB.
    @Test func aFontconfigRuleThatTakesMinutesIsWaitedForAWhile() throws {
        let dir = try Fixtures.temporaryDirectory()
        var rules = "<include>/etc/fonts/fonts.conf</include>"
        rules += "<match target=\"pattern\"><edit name=\"family\" mode=\"append\">"
        for name in 0..<300_000 { rules += "<string>v\(name)</string>" }
        rules += "</edit></match>"
        for test in 0..<20_000 {
            rules += "<match target=\"pattern\"><test qual=\"any\" name=\"family\"><string>none\(test)</string></test>"
            rules += "<edit name=\"weight\" mode=\"assign\"><int>80</int></edit></match>"
        }
        let config = dir.appendingPathComponent("fonts.conf").path
        try Data("<?xml version=\"1.0\"?>\n<fontconfig>\(rules)</fontconfig>\n".utf8)
            .write(to: URL(fileURLWithPath: config))
        let out = dir.appendingPathComponent("out.png").path
        let result = try Catctl.runBounded(
            ["edit", "--filter", "caption:猫", Fixtures.path("photos/chelsea.png"), out],
            memory: 1 << 30, seconds: 60, environment: ["FONTCONFIG_FILE": config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("did not answer within 5 s"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// 500 nested `<include>`s (fontconfig, through expat, takes some 20 KB of stack a
    /// level: the loader thread's 8 MiB overflowed at about 400, SIGSEGV and no message)
    /// load on the loader's 64 MiB, and the system's fonts at the end of the chain draw 猫.
    @Test func aFontconfigChainOfNestedIncludesLoads() throws {
        let dir = try Fixtures.temporaryDirectory()
        let levels = 500
        for level in 0..<levels {
            let next = level + 1 < levels ? "<include>\(dir.path)/c\(level + 1).conf</include>" : ""
            try Data("<?xml version=\"1.0\"?>\n<fontconfig>\(next)</fontconfig>\n".utf8)
                .write(to: dir.appendingPathComponent("c\(level).conf"))
        }
        let config = dir.appendingPathComponent("fonts.conf").path
        let root = "<include>\(dir.path)/c0.conf</include><include>/etc/fonts/fonts.conf</include>"
        try Data("<?xml version=\"1.0\"?>\n<fontconfig>\(root)</fontconfig>\n".utf8)
            .write(to: URL(fileURLWithPath: config))
        let out = dir.appendingPathComponent("out.png").path
        let result = try Catctl.runBounded(
            ["edit", "--filter", "caption:猫", Fixtures.path("photos/chelsea.png"), out],
            memory: 1 << 30, seconds: 60, environment: ["FONTCONFIG_FILE": config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
        // Under the sanitizer the chain may take longer than the 5 s fontconfig is waited for.
        if !Catctl.isSanitized { #expect(!result.stderr.contains("no installed font has"), "\(result.stderr)") }
    }

    /// A character no font has is named once, with the package that would draw it; the
    /// caption is still drawn.
    @Test func missingCharactersAreNamed() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("out.png").path
        let result = try Catctl.run(
            ["edit", "--filter", "caption:cat \u{E000}\u{E001}", Fixtures.path("photos/chelsea.png"), out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("no installed font has"), "\(result.stderr)")
        #expect(result.stderr.contains("U+E000, U+E001"), "\(result.stderr)")
    }
}
