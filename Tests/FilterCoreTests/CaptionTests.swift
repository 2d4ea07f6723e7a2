import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

@testable import FilterCore

/// Captions through the text stack (FreeType, libraqm, fontconfig) and the bundled font.
@Suite("Captions")
struct CaptionTests {
    func grey(_ width: Int, _ height: Int) throws -> PixelBuffer {
        let image = try PixelBuffer(width: width, height: height)
        image.fill(r: 128, g: 128, b: 128)
        return image
    }

    /// Rows whose pixels are not all the grey they started as.
    func touchedRows(_ image: PixelBuffer) -> [Int] {
        (0..<image.height).filter { y in
            (0..<image.width).contains { x in image.pixel(x, y) != (128, 128, 128, 255) }
        }
    }

    @Test func whiteLettersWithADarkOutlineAtTheBottom() throws {
        let out = try FilterChain(specs: ["caption:HELLO CAT"]).apply(to: try grey(400, 300))
        let rows = touchedRows(out)
        #expect(!rows.isEmpty && rows.first! > 150 && rows.last! < 300, "\(rows.first ?? -1)...\(rows.last ?? -1)")
        let pixels = rows.flatMap { y in (0..<out.width).map { out.pixel($0, y) } }
        #expect(pixels.contains { $0.0 >= 250 && $0.1 >= 250 && $0.2 >= 250 }, "white letters")
        #expect(pixels.contains { $0.0 <= 30 && $0.1 <= 30 && $0.2 <= 30 }, "a dark outline")
        let top = try FilterChain(specs: ["caption-top:HELLO CAT"]).apply(to: try grey(400, 300))
        let topRows = touchedRows(top)
        #expect(!topRows.isEmpty && topRows.last! < 150)
    }

    @Test func longTextWrapsOntoLinesThatFit() throws {
        let text = "when you realise the red dot was the laser pointer all along and nobody told you"
        let layout = try CaptionMask(text, top: false, width: 300, height: 400)
        #expect(layout.lines.count > 2, "\(layout.lines)")
        #expect(layout.lines.joined(separator: " ") == text)
        let short = try CaptionMask("HI", top: false, width: 900, height: 600)
        #expect(short.lines == ["HI"] && short.size == 100, "sized to the width: \(short.size)")
        // The caption stays inside the picture.
        let out = try FilterChain(specs: ["caption:" + text]).apply(to: try grey(300, 400))
        #expect(touchedRows(out).first! > 400 / 2)
    }

    @Test func utf8AndCharactersTheFontLacks() throws {
        // DejaVu has é; 😺 comes from the colour emoji font, 猫 from a CJK font; a private-use
        // character no font has draws the bundled font's missing-glyph box.
        for text in ["Hé, chat!", "😺", "猫", "\u{E000}"] {
            let out = try FilterChain(specs: ["caption:" + text]).apply(to: try grey(200, 120))
            #expect(!touchedRows(out).isEmpty, "\(text) draws something")
        }
    }

    @Test func emptyCaptionsAreUsageErrors() {
        for spec in ["caption", "caption:", "caption:   ", "caption-top: "] {
            #expect(throws: FilterError.self, "\(spec)") { try FilterChain(specs: [spec]) }
        }
    }

    @Test func keepsAlphaAndTheSizeAndIsTheSameOnEveryThreadCount() throws {
        let image = try PixelBuffer.random(width: 181, height: 97, seed: 12)
        let one = try FilterChain(specs: ["caption:Same bytes"]).apply(to: try image.copy(), threads: 1)
        let three = try FilterChain(specs: ["caption:Same bytes"]).apply(to: try image.copy(), threads: 3)
        let reference = try FilterChain(specs: ["caption:Same bytes"]).applyReference(to: try image.copy())
        #expect(one.width == 181 && one.height == 97)
        #expect(one.packedRGBA() == three.packedRGBA() && one.packedRGBA() == reference.packedRGBA())
    }
}
