internal import CTextShim
import CatSupport

/// A TrueType/OpenType font through FreeType, drawing text into 8-bit coverage masks:
/// the glyphs, and their outlines stroked by FreeType's stroker; colour glyphs (emoji) into
/// an RGBA layer. One thread at a time. Captions lay text out through `TextLayout`, which
/// shapes it over this font and the fonts fontconfig finds for what it lacks.
public final class Font {
    let font: OpaquePointer
    /// The file, and the face in it (a collection holds several).
    let path: String, index: Int

    /// Font files larger than this are not opened (Noto Serif CJK Bold, the largest Debian
    /// ships, is 27 MB).
    public static let maxBytes = 128 * 1_048_576

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

    /// A font file (face `index` of a collection): missing or unreadable is `fontUnreadable`
    /// (66), a file FreeType cannot read as a font `notAFont` (65). Only regular files no
    /// larger than `maxBytes` are opened, read-only (a FIFO would hang, a device never end).
    public init(path: String, index: Int = 0) throws(FilterError) {
        let name = "the font \(path)"
        guard let st = FileSystem.status(path) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .fontUnreadable(path: name, reason: "no such file") }
            throw .fontUnreadable(path: name, reason: errnoReason(code))
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw .fontUnreadable(path: name, reason: "it is not a regular file")
        }
        guard st.st_size <= Self.maxBytes else {
            throw .fontUnreadable(path: name, reason: "it is larger than \(Self.maxBytes / 1_048_576) MiB")
        }
        guard FileNames.withPath(path, { access($0, R_OK) }) == 0 else {
            throw .fontUnreadable(path: name, reason: errnoReason(errno))
        }
        var message = [CChar](repeating: 0, count: 256)
        let opened = FileNames.withPath(path) { cPath in
            message.withUnsafeMutableBufferPointer { cft_open_face(cPath, index, $0.baseAddress, $0.count) }
        }
        guard let font = opened else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .notAFont(path: path, reason: reason)
        }
        self.font = font
        self.path = path
        self.index = index
    }

    deinit { cft_close(font) }

    /// Whether the font has a glyph for `scalar`.
    func has(_ scalar: UInt32) -> Bool { cft_has_char(font, scalar) != 0 }

    /// Whether its glyphs are colour bitmaps (emoji), drawn in their own colours.
    var isColour: Bool { cft_is_colour(font) != 0 }

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
}
