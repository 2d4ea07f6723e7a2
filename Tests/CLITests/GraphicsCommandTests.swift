import Foundation
import TestSupport
import Testing

/// `--graphics` on load and edit --gallery: a mode given by name draws even into a pipe,
/// so scripts and tests can capture it (issue 12, pictures through libchafa).
@Suite("--graphics on the command line")
struct GraphicsCommandTests {
    @Test func namedModesDrawIntoAPipe() throws {
        for (mode, start) in [
            ("kitty", "\u{1B}_G"), ("iterm", "\u{1B}]1337;File="), ("sixel", "\u{1B}P"), ("symbols", "\u{1B}["),
        ] {
            let result = try Catctl.run(
                ["load", "--provider", "folder", "--graphics", mode], environment: ["NO_COLOR": ""])
            #expect(result.status == 0, "\(mode): \(result.stderr)")
            #expect(result.stdoutText.contains(start), "\(mode)")
        }
        let plain = try Catctl.run(["load", "--provider", "folder", "--graphics", "symbols"])  // NO_COLOR=1
        #expect(plain.status == 0 && !plain.stdoutText.contains("\u{1B}") && plain.stdoutLines.count > 10)
        let none = try Catctl.run(["load", "--provider", "folder", "--graphics", "none"])
        #expect(none.status == 0 && none.stdoutLines.count < 6, "\(none.stdoutText)")
        // Without a terminal and without a named mode: no picture, as before.
        let auto = try Catctl.run(["load", "--provider", "folder"])
        #expect(auto.status == 0 && !auto.stdoutText.contains("\u{1B}") && auto.stdoutLines.count < 6)
        let bad = try Catctl.run(["load", "--provider", "folder", "--graphics", "ascii"])
        #expect(bad.status == 64 && bad.stderr.contains("'ascii' is invalid for '--graphics <mode>'"))
    }

    @Test func galleryTilesAreDrawnWhenAskedFor() throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("g.png").path
        let result = try Catctl.run(
            ["edit", "--gallery", "--graphics", "kitty", Fixtures.path("photos/chelsea.png"), out],
            environment: ["COLUMNS": "120"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("\u{1B}_G") && result.stdoutText.contains("sepia"))
    }
}
