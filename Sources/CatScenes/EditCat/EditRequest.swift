import ImageIO

/// What the user asked the Edit Cat scene to do, checked by the command line already.
public struct EditRequest: Sendable, Equatable {
    /// A path, or "-" for standard input.
    public var input: String
    /// A path, or "-" for standard output.
    public var output: String
    public var filters: [String]
    /// The output's format, resolved from `--format` or the output's extension.
    public var format: ImageFormat
    public var quality: Int
    public var pngLevel: Int
    public var force: Bool
    public var maxPixels: Int

    public init(
        input: String, output: String, filters: [String], format: ImageFormat,
        quality: Int = EncodeOptions.defaultJPEGQuality, pngLevel: Int = EncodeOptions.defaultPNGLevel,
        force: Bool = false, maxPixels: Int = DecodeOptions.defaultMaxPixels
    ) {
        self.input = input
        self.output = output
        self.filters = filters
        self.format = format
        self.quality = quality
        self.pngLevel = pngLevel
        self.force = force
        self.maxPixels = maxPixels
    }

    var encodeOptions: EncodeOptions { EncodeOptions(format: format, jpegQuality: quality, pngLevel: pngLevel) }
}
