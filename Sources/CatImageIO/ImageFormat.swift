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

    /// Every format there is a codec for, in registry order.
    public static var all: [ImageFormat] { ImageCodecs.all.map(\.format) }

    /// Lower-case file extensions, the usual one first.
    public var fileExtensions: [String] { ImageCodecs.codec(for: self).fileExtensions }

    /// "JPEG or PNG": every format's name, for messages.
    public static var names: String { ImageCodecs.displayNames }

    /// ".jpg, .jpeg or .png": every extension, for messages.
    public static var extensionList: String { ImageCodecs.extensionList }

    /// Recognises a format by the file's first bytes, whatever the file is called.
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        ImageCodecs.codec(recognizing: Array(bytes.prefix(ImageCodecs.headBytes)))?.format
    }
}
