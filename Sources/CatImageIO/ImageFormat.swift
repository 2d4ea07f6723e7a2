/// A file format catctl reads and writes, named by its codec (`jpeg`, `png`). Each codec
/// file in `Codecs/` declares its own format (`ImageFormat.jpeg` in JPEGCodec.swift), and
/// everything else about it (extensions, magic bytes) is asked of the codec registry.
public struct ImageFormat: Hashable, Sendable, CustomStringConvertible {
    /// Lower case, as in JSON output: "jpeg", "png".
    public let name: String

    init(_ name: String) { self.name = name }

    public var description: String { name }

    /// The usual file extension, without the dot.
    public var fileExtension: String { ImageCodecs.codec(for: self).fileExtensions[0] }

    /// The format named by a file extension (`jpg`, `jpeg`, `png`, any case), or nil.
    public init?(fileExtension ext: String) {
        guard let codec = ImageCodecs.codec(forExtension: ext) else { return nil }
        self = codec.format
    }

    /// The format of the file at `path`, from its extension, or nil.
    public init?(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(fileExtension: String(name[name.index(after: dot)...]))
    }

    /// Its media type, as HTTP and S3 name it: "image/jpeg", "image/jxl".
    public var mediaType: String { "image/\(name)" }

    /// Every format there is a codec for, in registry order.
    public static var all: [ImageFormat] { ImageCodecs.all.map(\.format) }

    /// Lower-case file extensions, the usual one first.
    public var fileExtensions: [String] { ImageCodecs.codec(for: self).fileExtensions }

    /// The name people use: "JPEG".
    public var displayName: String { ImageCodecs.codec(for: self).displayName }

    /// What its encoder takes (quality, level, lossless, ...), with ranges and defaults.
    public var controls: EncoderControls { ImageCodecs.codec(for: self).controls }

    /// It holds animations: every frame is written.
    public var animates: Bool { ImageCodecs.codec(for: self).animates }

    /// Its encoder keeps transparency (not JPEG, whose pictures are opaque, nor GIF, whose
    /// transparency is on or off).
    public var keepsAlpha: Bool { ImageCodecs.codec(for: self).keepsAlpha }

    /// Its decoder can shrink on load (a JPEG's DCT scaling).
    public var shrinksOnLoad: Bool { ImageCodecs.codec(for: self).shrinksOnLoad }

    /// What standard output gets when no format is named: the first format that keeps every
    /// pixel of one picture (no quality, no frames): PNG.
    public static var standardOutput: ImageFormat {
        ImageCodecs.all.first { $0.controls[.quality] == nil && !$0.animates }!.format
    }

    /// Every format's name, joined: "JPEG, PNG, WebP or GIF".
    public static func names(of formats: [ImageFormat], _ conjunction: String = "or") -> String {
        ImageCodecs.list(formats.map(\.displayName), conjunction)
    }

    /// Their usual extensions with dots, joined: ".webp or .gif".
    public static func extensions(of formats: [ImageFormat], _ conjunction: String = "or") -> String {
        ImageCodecs.list(formats.map { "." + $0.fileExtension }, conjunction)
    }

    /// Every extension, with dots, joined by commas: ".jpg, .jpeg, .png".
    public static var extensionsWithCommas: String {
        all.flatMap(\.fileExtensions).map { "." + $0 }.joined(separator: ", ")
    }

    /// "JPEG or PNG": every format's name, for messages.
    public static var names: String { ImageCodecs.displayNames }

    /// ".jpg, .jpeg or .png": every extension, for messages.
    public static var extensionList: String { ImageCodecs.extensionList }

    /// Recognises a format by the file's first bytes, whatever the file is called.
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        ImageCodecs.codec(recognizing: Array(bytes.prefix(ImageCodecs.headBytes)))?.format
    }
}
