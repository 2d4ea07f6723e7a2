import CatImageIO

/// What the user asked the Edit Cat scene to do, checked by the command line already.
public struct EditRequest: Sendable, Equatable {
    /// A path, or "-" for standard input.
    public var input: String
    /// A path, or "-" for standard output.
    public var output: String
    public var filters: [String]
    /// The output's format, resolved from `--format` or the output's extension.
    public var format: ImageFormat
    public var encoding: EncodeSettings
    public var force: Bool
    public var maxPixels: Int
    /// Animations with more frames are refused.
    public var maxFrames: Int
    /// `--require-cat`: a cat filter that finds no cat fails (65, no output).
    public var requireCat = false

    public init(
        input: String, output: String, filters: [String], format: ImageFormat,
        encoding: EncodeSettings = [:], force: Bool = false,
        maxPixels: Int = DecodeOptions.defaultMaxPixels, maxFrames: Int = DecodeOptions.defaultMaxFrames
    ) {
        self.input = input
        self.output = output
        self.filters = filters
        self.format = format
        self.encoding = encoding
        self.force = force
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
    }

    var encodeOptions: EncodeOptions { EncodeOptions(format: format, settings: encoding) }
}
