/// A key as the live scenes see it.
public enum Key: Equatable, Sendable {
    /// A printable character (any script; UTF-8 decoded).
    case char(Character)
    case up, down, left, right, home, end, pageUp, pageDown, delete
    case enter, tab, backspace, escape
    /// Ctrl with a letter: `.ctrl("c")` is byte 3.
    case ctrl(Character)
    /// Alt (Meta) with a character: ESC then the character.
    case alt(Character)
    /// A mouse report (SGR, mode 1006: `ESC [ < b ; x ; y M` or `m`).
    case mouse(MouseEvent)
    /// A sequence catctl does not use (function keys, unknown replies).
    case unknown

    /// A printable character.
    var isChar: Bool { if case .char = self { true } else { false } }

    /// A turn of the wheel (up or down).
    var wheel: MouseEvent.Action? {
        guard case let .mouse(m) = self, m.action == .wheelUp || m.action == .wheelDown else { return nil }
        return m.action
    }
}

/// What the mouse did, where (cells, from 1): a button pressed or released, or the wheel.
public struct MouseEvent: Equatable, Sendable {
    public enum Action: Equatable, Sendable { case press, release, wheelUp, wheelDown, drag }
    public let action: Action
    /// 0 left, 1 middle, 2 right.
    public let button: Int
    public let column: Int, row: Int
    /// Turns of the wheel this stands for: a burst of them in one read is one event.
    public var count = 1

    public init(_ action: Action, button: Int = 0, column: Int, row: Int, count: Int = 1) {
        (self.action, self.button, self.column, self.row, self.count) = (action, button, column, row, count)
    }

    /// An SGR report's numbers: `b` (button and modifier bits), x, y; `pressed` by its final (M).
    static func sgr(_ numbers: [Int], pressed: Bool) -> MouseEvent? {
        guard numbers.count == 3, numbers[1] >= 1, numbers[2] >= 1, numbers[1] <= 10000, numbers[2] <= 10000 else {
            return nil
        }
        let b = numbers[0]
        guard b & 128 == 0 else { return nil }  // the extra buttons (back, forward)
        let action: Action
        if b & 64 != 0 {
            guard b & 3 < 2 else { return nil }  // wheel left / right
            action = b & 1 == 0 ? .wheelUp : .wheelDown
        } else if b & 32 != 0 {
            action = .drag
        } else {
            action = pressed ? .press : .release
        }
        return MouseEvent(action, button: b & 64 != 0 ? 0 : b & 3, column: numbers[1], row: numbers[2])
    }
}

/// What a terminal sends on its input: keys, and the replies to catctl's queries.
public enum TerminalInput: Equatable, Sendable {
    case key(Key)
    /// The reply to `CSI 16 t`: a cell's size in pixels.
    case cellSize(width: Int, height: Int)
    /// The reply to `CSI c` (Primary Device Attributes): 4 among them means sixels.
    case deviceAttributes([Int])
    /// The reply to a kitty graphics query (`ESC _G…;OK ESC \` when it can show pictures).
    case kittyGraphics(ok: Bool)
    /// Text pasted: between the bracketed-paste marks (`ESC [ 200 ~` … `ESC [ 201 ~`, mode
    /// 2004), or a burst of characters too fast to be typed (`InputReader`). Never keys:
    /// only a text prompt takes it. At most `KeyDecoder.maxPaste` bytes of it are kept.
    case paste(String)
    /// The terminal is gone (end of input).
    case closed
}

/// Turns the bytes a terminal sends in raw mode into keys and replies: CSI and SS3
/// sequences (arrows, Home/End, Delete, PageUp/Down, with or without modifiers; SGR mouse
/// reports), Alt as
/// ESC + key, control bytes, UTF-8, and the APC/OSC/DCS strings terminals answer with.
/// A lone ESC is ambiguous until the next bytes come (or do not): `feed` keeps an
/// unfinished sequence, and `flush`, called when no byte came for a moment, reads it
/// as the keys typed.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// A bracketed paste under way: its bytes so far (at most `maxPaste`), and whether more came.
    private var paste: [UInt8]?
    private var pasteCut = false
    /// When the last paste's end mark came (seconds, the caller's clock), and whether the
    /// paste under way is its tail: pasted text may hold an end mark of its own (terminals
    /// pass it on), and what follows it would run as keys (`x ESC[201~ q` quit the editor).
    /// So what comes in the same read, or within `pasteTail` seconds, is pasted text too.
    private var pasteEnded: Double?
    private var inTail = false
    static let pasteTail = 0.05

    /// The most of one paste that is kept (a caption holds 1000 characters).
    public static let maxPaste = 64 * 1024
    static let pasteStart = Array("\u{1B}[200~".utf8), pasteEnd = Array("\u{1B}[201~".utf8)

    public init() {}

    /// An unfinished sequence is waiting for more bytes (or for `flush`); a paste under way
    /// waits for its end mark, however long; a paste's tail for a moment's quiet.
    public var hasPending: Bool { (!pending.isEmpty && paste == nil) || inTail }

    /// `now`: the reading clock in seconds (InputReader's), for a paste's tail; nil: the
    /// tail is only what comes in the same read.
    public mutating func feed(_ bytes: [UInt8], at now: Double? = nil) -> [TerminalInput] {
        if paste == nil, !bytes.isEmpty, let now, let ended = pasteEnded, now - ended < Self.pasteTail {
            (paste, inTail) = ([], true)  // right behind a paste: still pasted text
        }
        pending += bytes
        var out: [TerminalInput] = []
        var i = 0
        while i < pending.count {
            if paste != nil {
                // Up to the end mark; what may be its start stays pending.
                guard let end = Self.find(Self.pasteEnd, in: pending, from: i) else {
                    let keep = max(i, pending.count - (Self.pasteEnd.count - 1))
                    take(pending[i..<keep])
                    i = keep
                    break
                }
                take(pending[i..<end])
                if !(paste ?? []).isEmpty || !inTail {
                    out.append(.paste(String(decoding: paste ?? [], as: UTF8.self)))
                }
                (paste, pasteCut, inTail, pasteEnded) = (nil, false, false, now ?? -1)
                i = end + Self.pasteEnd.count
                if i < pending.count { (paste, inTail) = ([], true) }  // the same read goes on: its tail
                continue
            }
            if pending[i] == 0x1B, pending.count - i < Self.pasteStart.count,
                Self.pasteStart.starts(with: pending[i...])
            {
                break  // perhaps a paste's start mark: wait for the rest
            }
            if pending[i...].starts(with: Self.pasteStart) {
                paste = []
                i += Self.pasteStart.count
                continue
            }
            guard let (input, length) = Self.decode(pending, at: i) else { break }  // wait for more
            if let input { out.append(input) }
            i += length
        }
        pending.removeFirst(i)
        return out
    }

    /// What came in one read, as the app takes it: a run of more than `burst` characters in
    /// one read is no typing but a paste from a terminal without bracketed paste (a line
    /// break inside the run stays in the text; one at its end stays a key); turns of the
    /// wheel one after another are one event that counts them.
    public static func coalesce(_ inputs: [TerminalInput], burst: Int = 8) -> [TerminalInput] {
        var out: [TerminalInput] = []
        var run: [TerminalInput] = []
        func flushRun() {
            let chars = run.filter { if case .key(.char) = $0 { true } else { false } }.count
            if chars > burst {
                var trailing: [TerminalInput] = []
                while let last = run.last, case .key(let key) = last, !key.isChar {
                    trailing.insert(last, at: 0)
                    run.removeLast()
                }
                let text = run.map { input -> String in
                    if case let .key(.char(c)) = input { return String(c) }
                    return " "  // a line break or a tab inside pasted text
                }.joined()
                out.append(.paste(text))
                out += trailing
            } else {
                out += run
            }
            run = []
        }
        for input in inputs {
            switch input {
            case .key(.char), .key(.enter), .key(.tab): run.append(input)
            case let .key(key) where key.wheel != nil:
                flushRun()
                // Turns of the wheel one after another: one event of as many turns.
                if case let .key(.mouse(last))? = out.last, Key.mouse(last).wheel == key.wheel, case let .mouse(m) = key
                {
                    out[out.count - 1] = .key(
                        .mouse(
                            MouseEvent(last.action, column: m.column, row: m.row, count: min(last.count + 1, 10_000))))
                } else {
                    out.append(input)
                }
            default:
                flushRun()
                out.append(input)
            }
        }
        flushRun()
        return out
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>) {
        let room = Self.maxPaste - (paste?.count ?? 0)
        if bytes.count > room { pasteCut = true }
        paste?.append(contentsOf: bytes.prefix(max(0, room)))
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var j = start
        while j <= bytes.count - needle.count {
            if bytes[j] == needle[0], bytes[j..<(j + needle.count)].elementsEqual(needle) { return j }
            j += 1
        }
        return nil
    }

    /// No more bytes came: what is pending is what was typed (a lone ESC is Escape).
    public mutating func flush() -> [TerminalInput] {
        if inTail, let tail = paste {
            // A paste's tail with no end mark of its own: the quiet ends it.
            take(pending[...])
            pending = []
            let text = paste ?? tail
            (paste, inTail, pasteEnded) = (nil, false, nil)
            return text.isEmpty ? [] : [.paste(String(decoding: text, as: UTF8.self))]
        }
        guard !pending.isEmpty, paste == nil else { return [] }
        var out: [TerminalInput] = []
        if pending[0] == 0x1B {
            out.append(.key(.escape))
            pending.removeFirst()
        }
        let rest = pending
        pending = []
        out += feed(rest)
        if !pending.isEmpty {  // a cut UTF-8 character or sequence: drop it
            pending = []
            out.append(.key(.unknown))
        }
        return out
    }

    /// One input at `i`, and its length in bytes; nil when the bytes end before it does.
    /// A nil input: bytes consumed without meaning (an answer nobody asked about).
    static func decode(_ b: [UInt8], at i: Int) -> (TerminalInput?, Int)? {
        let byte = b[i]
        switch byte {
        case 0x1B:
            guard i + 1 < b.count else { return nil }
            switch b[i + 1] {
            case UInt8(ascii: "["): return csi(b, at: i)
            case UInt8(ascii: "O"):
                guard i + 2 < b.count else { return nil }
                let key = Self.final(b[i + 2], parameters: [])
                return (.key(key), 3)
            case UInt8(ascii: "_"), UInt8(ascii: "]"), UInt8(ascii: "P"):
                return string(b, at: i)
            case 0x1B:
                return (.key(.escape), 1)
            default:
                guard let (key, length) = plain(b, at: i + 1) else { return nil }
                if case let .char(c) = key { return (.key(.alt(c)), length + 1) }
                return (.key(key), length + 1)
            }
        default:
            guard let (key, length) = plain(b, at: i) else { return nil }
            return (.key(key), length)
        }
    }

    /// A byte or UTF-8 character that is not ESC.
    static func plain(_ b: [UInt8], at i: Int) -> (Key, Int)? {
        let byte = b[i]
        switch byte {
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x00: return (.ctrl(" "), 1)
        case 0x01...0x1A: return (.ctrl(Character(UnicodeScalar(byte + 0x60))), 1)
        case 0x1B...0x1F: return (.unknown, 1)
        case 0x20...0x7E: return (.char(Character(UnicodeScalar(byte))), 1)
        default:
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            guard length > 1 else { return (.unknown, 1) }
            guard i + length <= b.count else { return nil }
            let text = String(decoding: b[i..<i + length], as: UTF8.self)
            guard let c = text.first, text.count == 1, c != "\u{FFFD}" else { return (.unknown, length) }
            return (.char(c), length)
        }
    }

    /// `ESC [ params intermediates final`.
    static func csi(_ b: [UInt8], at i: Int) -> (TerminalInput?, Int)? {
        var j = i + 2
        while j < b.count, (0x20...0x3F).contains(b[j]) { j += 1 }
        guard j < b.count else { return j - i > 64 ? (.key(.unknown), j - i) : nil }
        let body = String(decoding: b[(i + 2)..<j], as: UTF8.self)
        let final = b[j], length = j - i + 1
        // A mouse report of the old kind (`ESC [ M` and three bytes), from a terminal that
        // knows mode 1000 but not 1006: its bytes are no keys.
        if body.isEmpty, final == UInt8(ascii: "M") {
            guard j + 3 < b.count else { return nil }
            return (.key(.unknown), length + 3)
        }
        if body.hasPrefix("?"), final == UInt8(ascii: "c") {
            return (.deviceAttributes(body.dropFirst().split(separator: ";").compactMap { Int($0) }), length)
        }
        if body.hasPrefix("<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") {
            let numbers = body.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map {
                $0.count <= 6 ? Int($0) ?? -1 : -1
            }
            return (
                .key(MouseEvent.sgr(numbers, pressed: final == UInt8(ascii: "M")).map(Key.mouse) ?? .unknown), length
            )
        }
        let numbers = body.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        if final == UInt8(ascii: "t") {
            guard numbers.count == 3, numbers[0] == 6 else { return (nil, length) }
            return (.cellSize(width: numbers[2], height: numbers[1]), length)
        }
        return (.key(Self.final(final, parameters: numbers)), length)
    }

    /// The key a CSI or SS3 final byte names (modifiers, `1;5A`, are ignored).
    static func final(_ byte: UInt8, parameters: [Int]) -> Key {
        switch byte {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "M"): return .enter  // SS3 M: keypad Enter
        case UInt8(ascii: "~"):
            switch parameters.first ?? 0 {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            case 5: return .pageUp
            case 6: return .pageDown
            default: return .unknown
            }
        default: return .unknown
        }
    }

    /// APC, OSC or DCS: up to ST (`ESC \`) or BEL. A kitty graphics reply is the one kept.
    static func string(_ b: [UInt8], at i: Int) -> (TerminalInput?, Int)? {
        var j = i + 2
        while j < b.count {
            if b[j] == 0x07 { break }
            if b[j] == 0x1B {
                guard j + 1 < b.count else { return nil }
                if b[j + 1] == UInt8(ascii: "\\") { break }
            }
            j += 1
        }
        guard j < b.count else { return j - i > 4096 ? (nil, j - i) : nil }
        let length = j - i + (b[j] == 0x07 ? 1 : 2)
        let body = String(decoding: b[(i + 2)..<j], as: UTF8.self)
        if b[i + 1] == UInt8(ascii: "_"), body.hasPrefix("G") {
            return (.kittyGraphics(ok: body.hasSuffix(";OK")), length)
        }
        return (nil, length)
    }
}
