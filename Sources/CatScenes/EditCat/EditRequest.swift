import ImageIO

/// What the user asked the Edit Cat scene to do.
public struct EditRequest: Sendable, Equatable {
    /// A path, or "-" for standard input.
    public var input: String
    /// A path, or "-" for standard output.
    public var output: String
    public var filters: [String]
    /// `--format`: overrides the output extension; required sense for "-".
    public var format: String?
    public var quality: Int
    public var pngLevel: Int
    public var force: Bool
    public var maxPixels: Int

    public init(input: String, output: String, filters: [String], format: String? = nil,
                quality: Int = EncodeOptions.defaultJPEGQuality, pngLevel: Int = EncodeOptions.defaultPNGLevel,
                force: Bool = false, maxPixels: Int = DecodeOptions.defaultMaxPixels) {
        self.input = input
        self.output = output
        self.filters = filters
        self.format = format
        self.quality = quality
        self.pngLevel = pngLevel
        self.force = force
        self.maxPixels = maxPixels
    }

    /// The encoder settings, or a usage error naming the bad option.
    func encodeOptions() throws(SceneError) -> EncodeOptions {
        guard (1...100).contains(quality) else { throw .usage("--quality must be 1-100, not \(quality)") }
        guard (0...9).contains(pngLevel) else { throw .usage("--png-level must be 0-9, not \(pngLevel)") }
        guard maxPixels > 0 else { throw .usage("--max-pixels must be positive") }
        return EncodeOptions(format: try outputFormat(), jpegQuality: quality, pngLevel: pngLevel)
    }

    /// From `--format`, else the output's extension; PNG for standard output.
    func outputFormat() throws(SceneError) -> ImageFormat {
        let fromExtension = output == "-" ? nil : ImageFormat(path: output)
        if let format {
            guard let chosen = ImageFormat(name: format) else {
                throw .usage("unknown --format '\(format)' (use jpg or png)")
            }
            if let fromExtension, fromExtension != chosen {
                throw .usage("--format \(format) contradicts the extension of \(output)")
            }
            return chosen
        }
        if output == "-" { return .png }
        guard let fromExtension else {
            throw .usage("unknown output extension in '\(output)' (use .jpg, .jpeg or .png, or --format)")
        }
        return fromExtension
    }
}
