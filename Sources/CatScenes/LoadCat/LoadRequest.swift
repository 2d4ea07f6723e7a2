import CatNetwork
import FilterCore
import ImageIO

/// What the user asked the Load Cat scene to do.
public struct LoadRequest: Sendable, Equatable {
    public var provider: String
    /// A URL (a folder for `folder`); nil for the provider's default.
    public var endpoint: String?
    /// Where to save the cat (or the edited cat); nil: only show it.
    public var output: String?
    /// Filters for the Edit Cat scene; needs `output`.
    public var filters: [String]
    public var quality: Int
    public var pngLevel: Int
    public var force: Bool
    public var maxPixels: Int
    /// Terminal columns for the preview; nil: no preview.
    public var previewColumns: Int?
    /// Text rows the preview may take.
    public var previewRows: Int
    /// Strings that must never be shown (the API key): replaced by "[redacted]" in every
    /// message, title and URL the scene shows.
    public var secrets: [String]

    public init(provider: String = "thecatapi", endpoint: String? = nil, output: String? = nil, filters: [String] = [],
                quality: Int = EncodeOptions.defaultJPEGQuality, pngLevel: Int = EncodeOptions.defaultPNGLevel,
                force: Bool = false, maxPixels: Int = DecodeOptions.defaultMaxPixels,
                previewColumns: Int? = nil, previewRows: Int = 24, secrets: [String] = []) {
        self.provider = provider
        self.endpoint = endpoint
        self.output = output
        self.filters = filters
        self.quality = quality
        self.pngLevel = pngLevel
        self.force = force
        self.maxPixels = maxPixels
        self.previewColumns = previewColumns
        self.previewRows = previewRows
        self.secrets = secrets.filter { !$0.isEmpty }
    }

    /// The output's format, when there is an output.
    func outputFormat() throws(SceneError) -> ImageFormat? {
        guard let output else {
            if !filters.isEmpty { throw .usage("--filter needs -o FILE to save the edited cat") }
            return nil
        }
        if output == "-" { return .png }
        guard let format = ImageFormat(path: output) else {
            throw .usage("unknown output extension in '\(output)' (use .jpg, .jpeg or .png)")
        }
        return format
    }
}
