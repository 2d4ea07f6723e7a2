import CatImageIO
import CatNetwork

/// What the user asked the Load Cat scene to do, checked by the command line already.
public struct LoadRequest: Sendable, Equatable {
    /// The provider's name, for the view.
    public var provider: String
    /// Where to save the cat (or the edited cat); nil: only show it.
    public var output: String?
    /// The output's format (from its extension); nil when there is no output.
    public var format: ImageFormat?
    /// Filters for the Edit Cat scene (only with an output).
    public var filters: [String]
    public var encoding: EncodeSettings
    public var maxPixels: Int
    /// Animations with more frames are refused.
    public var maxFrames: Int
    /// The largest preview picture, in pixels (the command line asks for a few pixels per
    /// terminal cell, more for graphics protocols); nil: no preview.
    public var previewWidth: Int?
    public var previewHeight: Int
    /// Strings that must never be shown (the API key): replaced by "[redacted]" in every
    /// message, title and URL the scene shows.
    public var secrets: [String]

    public init(
        provider: String = CatProviderKind.default.name, output: String? = nil, format: ImageFormat? = nil,
        filters: [String] = [],
        encoding: EncodeSettings = [:], maxPixels: Int = DecodeOptions.defaultMaxPixels,
        maxFrames: Int = DecodeOptions.defaultMaxFrames,
        previewWidth: Int? = nil, previewHeight: Int = 48, secrets: [String] = []
    ) {
        self.provider = provider
        self.output = output
        self.format = format
        self.filters = filters
        self.encoding = encoding
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.previewWidth = previewWidth
        self.previewHeight = previewHeight
        self.secrets = secrets.filter { !$0.isEmpty }
    }
}
