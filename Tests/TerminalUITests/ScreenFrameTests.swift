import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

@testable import TerminalUI

/// A frame on a fake host of `columns` x `rows` cells drawing in `kind`.
@MainActor
private func frame(
    columns: Int = 40, rows: Int = 10, kind: TerminalGraphics.Kind = .none, colors: ColorDepth = .none,
    inTmux: Bool = false
) -> ScreenFrame {
    let host = FakeHost()
    host.columns = columns
    host.rows = rows
    host.graphics = TerminalGraphics(kind: kind, colors: colors, inTmux: inTmux)
    return ScreenFrame(host: host)
}

/// Each text put at its place: the cursor move to (row, column), then what is shown there
/// (style sequences removed; `reversed` when reverse video was on).
private func placed(_ output: String) -> [(row: Int, column: Int, text: String, reversed: Bool)] {
    var found: [(row: Int, column: Int, text: String, reversed: Bool)] = []
    var rest = Substring(output)
    while let esc = rest.firstIndex(of: "\u{1B}") {
        if !found.isEmpty { found[found.count - 1].text += rest[..<esc] }
        rest = rest[rest.index(after: esc)...]
        guard rest.first == "[" else { continue }
        rest = rest.dropFirst()
        let end = rest.firstIndex { $0.isLetter } ?? rest.endIndex
        let parameters = rest[..<end]
        let final = end < rest.endIndex ? rest[end] : " "
        rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
        let at = parameters.split(separator: ";").compactMap { Int($0) }
        if final == "H", at.count == 2 {
            found.append((at[0], at[1], "", false))
        } else if final == "m", parameters == "7", !found.isEmpty {
            found[found.count - 1].reversed = true
        }
    }
    if !found.isEmpty { found[found.count - 1].text += rest }
    return found
}

@MainActor
@Suite("ScreenFrame: a whole screen written at once")
struct ScreenFrameTests {
    @Test func aFrameIsOneSynchronizedUpdateThatClearsTheScreen() {
        let out = frame().output
        #expect(out.hasPrefix("\u{1B}[?2026h\u{1B}[0m\u{1B}[H\u{1B}[2J"))
        #expect(out.hasSuffix("\u{1B}[0m\u{1B}[?2026l"))
        // kitty's pictures are not cells: they are deleted first (wrapped for tmux there).
        #expect(frame(kind: .kitty).output.contains("\u{1B}_Ga=d\u{1B}\\"))
        #expect(frame(kind: .kitty, inTmux: true).output.contains("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d"))
    }

    @Test func textIsNeutralisedCutAndPadded() {
        var f = frame(columns: 20)
        f.put("cat\u{1B}]0;owned\u{07}", row: 2, column: 3)
        f.put("a very long line that does not fit", row: 3, column: 11)
        f.put("pad", row: 4, width: 6)
        f.put("off screen", row: 11)
        f.put("off screen", row: 0)
        let texts = placed(f.output)
        let foreign = texts.first { $0.row == 2 }
        #expect(foreign?.column == 3 && foreign?.text.hasPrefix("cat") == true)
        #expect(!f.output.contains("\u{1B}]0;"), "a foreign escape never reaches the terminal")
        let cut = texts.first { $0.row == 3 }
        #expect(cut?.column == 11 && cut?.text == "a very lon")
        #expect(texts.first { $0.row == 4 }?.text == "pad   ")
        #expect(!texts.contains { $0.row == 11 || $0.row == 0 })
    }

    /// catctl's own kitty pictures: placed under an id and scaled to cells, then replaced in
    /// place by an animation frame (the root frame edited, then shown); RGBA in base64
    /// chunks of at most 4096 bytes, `m=1` on every chunk but the last.
    @Test func ownKittyPicturesArePlacedAndReplaced() throws {
        let image = try PixelBuffer.random(width: 70, height: 40, seed: 9)
        let place = KittyPicture.place(image, id: 42, columns: 9, rows: 3)
        #expect(place.hasPrefix("\u{1B}_Ga=T,C=1,f=32,s=70,v=40,c=9,r=3,i=42,q=2,m=1;"))
        let replace = KittyPicture.replace(image, id: 42)
        #expect(replace.hasPrefix("\u{1B}_Ga=f,r=1,X=1,f=32,s=70,v=40,i=42,q=2,m=1;"))
        #expect(replace.hasSuffix("\u{1B}_Ga=a,c=1,i=42,q=2\u{1B}\\"))
        for text in [place, replace] {
            let chunks = text.split(separator: "\u{1B}\\").map { String($0.dropFirst(3)) }.filter { $0.contains(";") }
            let payloads = chunks.map { String($0[$0.index(after: $0.firstIndex(of: ";")!)...]) }
            #expect(payloads.allSatisfy { $0.count <= 4096 } && payloads.dropLast().allSatisfy { $0.count == 4096 })
            #expect(chunks.dropLast().allSatisfy { $0.contains("m=1;") } && chunks.last?.contains("q=2,m=0;") == true)
            let bytes = try #require(Data(base64Encoded: payloads.joined()))
            #expect([UInt8](bytes) == image.packedRGBA())
        }
    }

    /// Wide characters (CJK, emoji) take two cells: a row is cut and padded by cells, so a
    /// full-width row never wraps onto the next and scrolls the screen.
    @Test func wideCharactersCountTwoCells() {
        #expect(CellWidth.of("cat") == 3 && CellWidth.of("猫") == 2 && CellWidth.of("🐈") == 2)
        #expect(CellWidth.of("e\u{301}") == 1 && CellWidth.of("\u{200D}") == 0 && CellWidth.of("ø") == 1)
        var f = frame(columns: 10)
        f.put("猫猫猫猫猫猫", row: 2)
        f.put("a猫", row: 3, width: 10)
        f.bar("猫 cat", right: "🐈", row: 1)
        let texts = placed(f.output)
        #expect(texts.first { $0.row == 2 }?.text == "猫猫猫猫猫")
        #expect(texts.first { $0.row == 3 }?.text == "a猫" + String(repeating: " ", count: 7))
        #expect(texts.first { $0.row == 1 }?.text == "猫 cat" + String(repeating: " ", count: 2) + "🐈")
        #expect(CellWidth.suffix("ab猫", fitting: 2) == "猫" && CellWidth.prefix("猫b", fitting: 1) == "")
    }

    @Test func aBarFillsTheWidthWithItsRightTextAtTheEdge() {
        var f = frame(columns: 30)
        f.bar("catctl edit", right: "? help", row: 1)
        let bar = placed(f.output).first { $0.row == 1 }
        #expect(bar?.text == "catctl edit" + String(repeating: " ", count: 13) + "? help" && bar?.reversed == true)
    }

    @Test func stylesFollowTheColours() {
        #expect(ScreenFrame.styled("x", .error, color: true) == "\u{1B}[1;31mx\u{1B}[0m")
        #expect(ScreenFrame.styled("x", .error, color: false) == "\u{1B}[1mx\u{1B}[0m")
        #expect(ScreenFrame.styled("x", .dim, color: false) == "x")
        #expect(ScreenFrame.styled("x", .reverse, color: false) == "\u{1B}[7mx\u{1B}[0m")
    }

    @Test func picturesAskForPixelsByMode() {
        #expect(frame(kind: .symbols).pixels(columns: 10, rows: 5) == (40, 40))
        #expect(frame(kind: .kitty).pixels(columns: 10, rows: 5) == (80, 80))  // 8x16 cells when unknown
        #expect(frame(kind: .symbols).pixels(columns: 0, rows: 0) == (1, 1))
    }

    @Test func aPictureIsCentredInItsBoxAndCached() throws {
        var f = frame(columns: 40, rows: 12, kind: .symbols, colors: .ansi256)
        let cat = try PixelBuffer.random(width: 32, height: 32, seed: 3)
        let cache = PictureCache()
        f.picture(cat, top: 2, left: 1, width: 20, height: 6, cache: cache)
        #expect(cache.pictures.count == 1)
        // Every line of the picture starts at the same column, as far from the box's left edge
        // as its right end is from the box's right edge (to a cell), and the lines sit inside
        // the box's rows.
        let lines = placed(f.output).filter { $0.row >= 2 }
        let width = lines.map(\.text.count).max() ?? 0
        #expect(!lines.isEmpty && width > 0 && width <= 20)
        #expect(Set(lines.map(\.column)).count == 1)
        let left = (lines.first?.column ?? 0) - 1, right = 20 - width - left
        #expect(left >= 0 && right >= 0 && abs(left - right) <= 1, "left \(left), right \(right)")
        #expect(lines.allSatisfy { $0.row <= 7 })
        cache.keep(only: [])
        #expect(cache.pictures.isEmpty)
    }
}

@MainActor
@Suite("PictureStrip: labelled pictures in a strip or a grid")
struct PictureStripTests {
    static func strip(count: Int, highlighted: Int) throws -> PictureStrip {
        let picture = try PixelBuffer.random(width: 8, height: 8, seed: 1)
        return PictureStrip(
            pictures: Array(repeating: picture, count: count), labels: (0..<count).map { "f\($0)" },
            highlighted: highlighted, tileColumns: 6, tileRows: 2, cache: PictureCache())
    }

    /// The labels shown: (row, column, label), the highlighted one marked.
    static func labels(_ f: ScreenFrame) -> [(row: Int, column: Int, label: String, reversed: Bool)] {
        placed(f.output).compactMap { p in
            let label = p.text.trimmingWhitespace()
            return label.hasPrefix("f") ? (p.row, p.column, label, p.reversed) : nil
        }
    }

    @Test func aStripCentresTheHighlightedPictureAndStopsAtTheEnds() throws {
        var f = frame(columns: 40)
        try Self.strip(count: 10, highlighted: 5).drawStrip(count: 3, top: 2, into: &f)
        #expect(Self.labels(f).map(\.label) == ["f4", "f5", "f6"])
        #expect(Self.labels(f).allSatisfy { $0.row == 4 })
        var end = frame(columns: 40)
        try Self.strip(count: 10, highlighted: 9).drawStrip(count: 3, top: 2, into: &end)
        #expect(Self.labels(end).map(\.label) == ["f7", "f8", "f9"])
        var few = frame(columns: 40)
        try Self.strip(count: 2, highlighted: 0).drawStrip(count: 5, top: 2, into: &few)
        #expect(Self.labels(few).map(\.label) == ["f0", "f1"])
        // Centred across the screen: 2 tiles of 6 and a gap of 1 are 13 wide of 40.
        #expect(Self.labels(few).first?.column == 1 + (40 - 13) / 2)
    }

    @Test func aGridScrollsToTheHighlightedRow() throws {
        // 10 rows of screen fit 2 grid rows of 2+1 cells (3 rows go to bars); 4 a row.
        var top = frame(columns: 40, rows: 10)
        try Self.strip(count: 20, highlighted: 1).drawGrid(columns: 4, into: &top)
        #expect(Self.labels(top).map(\.label) == ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"])
        var bottom = frame(columns: 40, rows: 10)
        try Self.strip(count: 20, highlighted: 18).drawGrid(columns: 4, into: &bottom)
        #expect(Self.labels(bottom).map(\.label).contains("f18"))
        #expect(!Self.labels(bottom).map(\.label).contains("f0"))
    }

    @Test func labelsAreNeutralisedAndCutToTheTile() throws {
        let picture = try PixelBuffer.random(width: 8, height: 8, seed: 1)
        let strip = PictureStrip(
            pictures: [picture], labels: ["f\u{1B}[2Jlong name"], highlighted: 0, tileColumns: 6, tileRows: 2,
            cache: PictureCache())
        var f = frame(columns: 20)
        strip.drawGrid(columns: 1, into: &f)
        // The frame's own clear screen, and no other.
        #expect(f.output.components(separatedBy: "\u{1B}[2J").count == 2)
        #expect(Self.labels(f).first?.label == "f\\033[")
        #expect(Self.labels(f).first?.reversed == true)
    }
}
