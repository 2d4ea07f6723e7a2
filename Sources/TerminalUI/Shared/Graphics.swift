internal import CChafaShim
import CatSupport

/// `--graphics`: how pictures are drawn.
public enum GraphicsMode: String, CaseIterable, Sendable {
    /// Detected from the environment; only on a terminal.
    case auto
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    case kitty
    /// iTerm2 inline images (iTerm2, WezTerm, mintty).
    case iterm
    /// DEC sixels (foot, mlterm, xterm -ti vt340, WezTerm, Konsole).
    case sixel
    /// Unicode block symbols in colour (any terminal).
    case symbols
    /// No pictures.
    case none
}

/// How many colours the symbols may use.
public enum ColorDepth: Sendable, Hashable {
    /// NO_COLOR, TERM=dumb: plain characters only.
    case none
    case ansi16
    case ansi256
    case trueColor
}

/// What pictures become on this terminal: resolved once from `--graphics` and the
/// environment, then handed to the views with the console.
public struct TerminalGraphics: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case symbols, kitty, iterm, sixel, none }

    public var kind: Kind
    /// For symbols.
    public var colors: ColorDepth
    /// Inside tmux: graphics sequences are wrapped for tmux passthrough.
    public var inTmux: Bool
    /// Asked for by name: drawn even when stdout is not a terminal (scripts, tests).
    public var forced: Bool

    public init(kind: Kind, colors: ColorDepth, inTmux: Bool = false, forced: Bool = false) {
        self.kind = kind
        self.colors = colors
        self.inTmux = inTmux
        self.forced = forced
    }

    /// Resolves `mode` for the terminal the environment describes. `auto` picks the
    /// protocol the terminal announces (kitty: KITTY_WINDOW_ID or TERM=xterm-kitty; iTerm2:
    /// TERM_PROGRAM or LC_TERMINAL; WezTerm and Ghostty: kitty; others: chafa's terminal
    /// database, e.g. sixels on foot and mlterm), and symbols inside tmux, which forwards
    /// graphics only with `allow-passthrough on`; a mode given by name is used as it is.
    /// NO_COLOR and TERM=dumb make symbols plain characters. `auto` draws only on a terminal:
    /// without one (`isTerminal` false) the terminal is not looked up at all.
    public static func resolve(
        _ mode: GraphicsMode, environment: [String: String], isTerminal: Bool = true
    ) -> TerminalGraphics {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        let inTmux = !(environment["TMUX"] ?? "").isEmpty
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        var colors: ColorDepth =
            noColor ? .none : (colorTerm == "truecolor" || colorTerm == "24bit") ? .trueColor : .ansi256
        func make(_ kind: Kind, forced: Bool) -> TerminalGraphics {
            TerminalGraphics(kind: kind, colors: colors, inTmux: inTmux, forced: forced)
        }
        switch mode {
        case .none: return make(.none, forced: true)
        case .symbols: return make(.symbols, forced: true)
        case .kitty: return make(.kitty, forced: true)
        case .iterm: return make(.iterm, forced: true)
        case .sixel: return make(.sixel, forced: true)
        case .auto: break
        }
        if noColor || inTmux || !isTerminal { return make(.symbols, forced: false) }
        let term = environment["TERM"] ?? "", program = environment["TERM_PROGRAM"] ?? ""
        if !(environment["KITTY_WINDOW_ID"] ?? "").isEmpty || term == "xterm-kitty" || program == "WezTerm"
            || program == "ghostty" || term == "xterm-ghostty"
        {
            return make(.kitty, forced: false)
        }
        if program == "iTerm.app" || environment["LC_TERMINAL"] == "iTerm2" { return make(.iterm, forced: false) }
        let detected = chafaDetect(environment)
        // 24-bit colour only when COLORTERM says so (chafa's database grants it to every
        // xterm-256color); fewer colours when the database knows the terminal has 16.
        if colors == .ansi256, detected.colors == Int32(CC_COLORS_16) { colors = .ansi16 }
        switch detected.mode {
        case Int32(CC_MODE_KITTY): return make(.kitty, forced: false)
        case Int32(CC_MODE_ITERM): return make(.iterm, forced: false)
        case Int32(CC_MODE_SIXEL): return make(.sixel, forced: false)
        default: return make(.symbols, forced: false)
        }
    }

    /// chafa's terminal database, from the same environment.
    private static func chafaDetect(_ environment: [String: String]) -> (mode: Int32, colors: Int32) {
        var strings = environment.map { strdup("\($0.key)=\($0.value)") }
        strings.append(nil)
        defer { for s in strings { free(s) } }
        var mode: Int32 = 0, colors: Int32 = 0
        _ = strings.withUnsafeMutableBufferPointer { cc_detect($0.baseAddress, &mode, &colors) }
        return (mode, colors)
    }
}
