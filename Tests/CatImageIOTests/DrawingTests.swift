import CatImageIO
import CatPixels
import TestSupport
import Testing

@Suite("Drawing, resampling")
struct DrawingTests {
    @Test func drawingClipsToTheBuffer() throws {
        let image = try PixelBuffer(width: 10, height: 6)
        image.fill(r: 0, g: 0, b: 0)
        image.fill(x: -5, y: -5, width: 3, height: 3, color: (255, 0, 0))  // wholly outside
        image.fill(x: 8, y: 4, width: 10, height: 10, color: (255, 0, 0))  // partly outside
        #expect(image.pixel(9, 5) == (255, 0, 0, 255) && image.pixel(7, 5) == (0, 0, 0, 255))
        BitmapFont.draw("HUE-ROTATE:90", into: image, x: 2, y: -3, scale: 2, color: (1, 2, 3))
        image.paste(try PixelBuffer.random(width: 4, height: 4, seed: 1), x: 8, y: -2)
        #expect(BitmapFont.width("AB", scale: 2) == 22)
    }

    @Test func textIsDrawn() throws {
        let image = try PixelBuffer(width: 40, height: 10)
        image.fill(r: 0, g: 0, b: 0)
        BitmapFont.draw("mono", into: image, x: 1, y: 1, scale: 1, color: (255, 255, 255))
        let lit = image.packedRGBA().enumerated().filter { $0.offset % 4 == 0 && $0.element == 255 }.count
        #expect(lit > 20)
    }
}
