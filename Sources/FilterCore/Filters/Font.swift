internal import CFreeTypeShim
import CatSupport

/// A TrueType/OpenType font through FreeType, drawing text into 8-bit coverage masks:
/// the glyphs, and their outlines stroked by FreeType's stroker. One thread at a time.
public final class Font {
    private let font: OpaquePointer

    /// The bold font bundled with catctl (DejaVu Sans Bold, Resources/fonts), or the file
    /// named by CATCTL_FONT.
    public static func bundled(environment: [String: String] = BundledResources.processEnvironment)
        throws(FilterError) -> Font
    {
        if let path = environment["CATCTL_FONT"], !path.isEmpty { return try Font(path: path) }
        guard let folder = BundledResources.directory("fonts", environment: environment) else {
            throw .resourceMissing("the caption font (Resources/fonts/DejaVuSans-Bold.ttf); set CATCTL_FONT to a .ttf")
        }
        return try Font(path: folder + "/DejaVuSans-Bold.ttf")
    }

    /// A font file: missing or unreadable is `fontUnreadable` (66), a file
    /// FreeType cannot read as a font `notAFont` (65). Only regular files are opened (a FIFO
    /// would hang, a device never end).
    public init(path: String) throws(FilterError) {
        let name = "the font \(path)"
        guard let st = FileSystem.status(path) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .fontUnreadable(path: name, reason: "no such file") }
            throw .fontUnreadable(path: name, reason: errnoReason(code))
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw .fontUnreadable(path: name, reason: "it is not a regular file")
        }
        guard FileNames.withPath(path, { access($0, R_OK) }) == 0 else {
            throw .fontUnreadable(path: name, reason: errnoReason(errno))
        }
        var message = [CChar](repeating: 0, count: 256)
        let opened = FileNames.withPath(path) { cPath in
            message.withUnsafeMutableBufferPointer { cft_open(cPath, $0.baseAddress, $0.count) }
        }
        guard let font = opened else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .notAFont(path: path, reason: reason)
        }
        self.font = font
    }

    deinit { cft_close(font) }

    /// Pixels per em.
    public func setSize(_ pixels: Int) throws(FilterError) {
        guard cft_set_size(font, Int32(pixels)) == 0 else { throw .resourceMissing("a \(pixels) px size of the font") }
    }

    /// Ascender (above the baseline), descender (below, ≤ 0) and line height, in pixels.
    public var metrics: (ascender: Int, descender: Int, lineHeight: Int) {
        var a: Int32 = 0, d: Int32 = 0, h: Int32 = 0
        cft_metrics(font, &a, &d, &h)
        return (Int(a), Int(d), Int(h))
    }

    /// The width of `text` in 1/64 pixels, kerning included.
    public func width(_ text: String) -> Int {
        var previous: UInt32 = 0, total = 0
        for scalar in text.unicodeScalars {
            total += cft_advance(font, previous, scalar.value)
            previous = scalar.value
        }
        return total
    }

    /// The kerning between two scalars, in 1/64 pixels (0 when either is missing).
    public func kerning(_ left: Unicode.Scalar?, _ right: Unicode.Scalar?) -> Int {
        guard let left, let right else { return 0 }
        return cft_advance(font, left.value, right.value) - cft_advance(font, 0, right.value)
    }

    /// Draws `text` starting at (x / 64, baseline) into `fill` (the glyphs) and `outline`
    /// (their borders, `radius` / 64 pixels wide), masks of `width` × `height`.
    public func draw(
        _ text: String, x: Int, baseline: Int, fill: UnsafeMutablePointer<UInt8>,
        outline: UnsafeMutablePointer<UInt8>?, width: Int, height: Int, radius: Int
    ) throws(FilterError) {
        var previous: UInt32 = 0, pen = x
        for scalar in text.unicodeScalars {
            pen += cft_advance(font, previous, scalar.value) - cft_advance(font, 0, scalar.value)  // the kerning
            guard
                cft_draw(font, scalar.value, pen, Int32(baseline), fill, outline, Int32(width), Int32(height), radius)
                    == 0
            else { throw .resourceMissing("a glyph of the font") }
            pen += cft_advance(font, 0, scalar.value)
            previous = scalar.value
        }
    }
}
