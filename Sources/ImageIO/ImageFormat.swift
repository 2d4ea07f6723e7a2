/// The file formats catctl reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png

    /// The usual file extension, without the dot.
    public var fileExtension: String { self == .jpeg ? "jpg" : "png" }

    /// The format named by a file extension (`jpg`, `jpeg`, `png`, any case), or nil.
    public init?(fileExtension ext: String) {
        switch ext.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        default: return nil
        }
    }

    /// The format named on the command line (`jpg`, `jpeg`, `png`), or nil.
    public init?(name: String) { self.init(fileExtension: name) }

    /// The format of the file at `path`, from its extension, or nil.
    public init?(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(fileExtension: String(name[name.index(after: dot)...]))
    }

    /// Recognises a JPEG or PNG by its first bytes, whatever the file is called. Only
    /// "\x89PNG" is checked for PNG, so that libpng can say what is wrong with the rest
    /// of a damaged signature (e.g. "corrupted by ASCII conversion").
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        let head = Array(bytes.prefix(4))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head == [0x89, 0x50, 0x4E, 0x47] { return .png }
        return nil
    }
}
