import CatImageIO
import Foundation
import TerminalUI
import TestSupport
import Testing

/// `--graphics`: which pictures a terminal gets, and what each mode writes (libchafa).
@Suite("Terminal graphics")
struct GraphicsTests {
    @Test func autoFollowsTheTerminalNamedModesAreForced() {
        func auto(_ env: [String: String]) -> TerminalGraphics { TerminalGraphics.resolve(.auto, environment: env) }
        #expect(auto(["TERM": "xterm-kitty"]).kind == .kitty)
        #expect(auto(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]).kind == .kitty)
        #expect(auto(["TERM_PROGRAM": "iTerm.app"]).kind == .iterm)
        #expect(auto(["TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"]).kind == .iterm)
        #expect(auto(["TERM": "foot"]).kind == .sixel)
        #expect(auto(["TERM": "xterm-256color"]) == TerminalGraphics(kind: .symbols, colors: .ansi256))
        #expect(auto(["TERM": "xterm-256color", "COLORTERM": "truecolor"]).colors == .trueColor)
        // tmux forwards graphics only when told to: auto stays with symbols there.
        let tmux = auto(["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"])
        #expect(tmux.kind == .symbols && tmux.inTmux)
        #expect(auto(["TERM": "xterm-256color", "NO_COLOR": "1"]) == TerminalGraphics(kind: .symbols, colors: .none))
        #expect(auto(["TERM": "dumb"]).colors == .none)
        #expect(!auto([:]).forced)
        let named = TerminalGraphics.resolve(.sixel, environment: ["TERM": "dumb"])
        #expect(named.kind == .sixel && named.forced)
        #expect(TerminalGraphics.resolve(.none, environment: [:]).kind == .none)
    }

    @Test func eachModeWritesItsOwnSequence() throws {
        let cat = try Fixtures.decode("photos/chelsea.png").pixels
        func draw(_ kind: TerminalGraphics.Kind, _ colors: ColorDepth = .ansi256, tmux: Bool = false) -> String {
            TerminalPicture.render(
                cat, graphics: TerminalGraphics(kind: kind, colors: colors, inTmux: tmux), columns: 60, rows: 20)
        }
        #expect(draw(.kitty).hasPrefix("\u{1B}_G"))
        #expect(draw(.iterm).hasPrefix("\u{1B}]1337;File="))
        let sixel = draw(.sixel)
        #expect(sixel.hasPrefix("\u{1B}P") && sixel.prefix(12).contains("q"))
        #expect(draw(.kitty, tmux: true).hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_G"))
        let symbols = draw(.symbols).split(separator: "\n")
        #expect(symbols.count <= 20 && symbols.count >= 10)
        #expect(symbols.allSatisfy { $0.hasSuffix("\u{1B}[0m") })
        let plain = draw(.symbols, .none)
        #expect(!plain.contains("\u{1B}") && plain.split(separator: "\n").allSatisfy { $0.count <= 60 })
        #expect(draw(.none).isEmpty)
    }
}
