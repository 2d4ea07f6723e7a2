/// A whole-number setting of an encoder (a quality, a compression level): its range and
/// its default.
public struct IntegerControl: Sendable, Equatable {
    public let range: ClosedRange<Int>
    public let defaultValue: Int

    init(_ range: ClosedRange<Int>, default defaultValue: Int) {
        self.range = range
        self.defaultValue = defaultValue
    }
}

/// A setting chosen by name among a few (TIFF's compression): the names, the default first
/// or as given.
public struct ChoiceControl: Sendable, Equatable {
    public let choices: [String]
    public let defaultValue: String

    init(_ choices: [String], default defaultValue: String) {
        precondition(choices.contains(defaultValue))
        self.choices = choices
        self.defaultValue = defaultValue
    }
}

/// What a codec's encoder can be told besides pixels and metadata, declared by the codec
/// itself (as Nuke's encoders carry their own settings): the command line's encoding
/// options, their help and their checks are made from these declarations
/// (`EncodingHelp`), so a format with a setting of its own changes its codec file only.
public struct EncoderControls: Sendable, Equatable {
    /// The quality of lossy encoding (`--quality`).
    public var quality: IntegerControl?
    /// A compression level: speed against size, the same pixels (`--png-level`).
    public var level: IntegerControl?
    /// The pixels exactly instead of lossy (`--lossless`).
    public var lossless = false
    /// How hard the encoder works for a smaller file at the same quality (`--effort`,
    /// libvips's name and scale: 0 fastest to 9 smallest).
    public var effort: IntegerControl?
    /// A compression method chosen by name (`--compression`).
    public var compression: ChoiceControl?

    init(
        quality: IntegerControl? = nil, level: IntegerControl? = nil, lossless: Bool = false,
        effort: IntegerControl? = nil, compression: ChoiceControl? = nil
    ) {
        self.quality = quality
        self.level = level
        self.lossless = lossless
        self.effort = effort
        self.compression = compression
    }
}

/// The encoding options' help and checks, from what every codec declares.
public enum EncodingHelp {
    /// "JPEG and WebP quality, 1-100 (default: 90 for JPEG, 80 for WebP)."
    public static var quality: String {
        let codecs = ImageCodecs.all.filter { $0.controls.quality != nil }
        let defaults = codecs.map { "\($0.controls.quality!.defaultValue) for \($0.displayName)" }
        return "\(ImageCodecs.list(codecs.map(\.displayName), "and")) quality, \(text(qualityRange)) "
            + "(default: \(defaults.joined(separator: ", ")))."
    }

    /// "PNG compression level, 0 (fast) to 9 (small)."
    public static var level: String {
        let codecs = ImageCodecs.all.filter { $0.controls.level != nil }
        return "\(ImageCodecs.list(codecs.map(\.displayName), "and")) compression level, "
            + "\(levelRange.lowerBound) (fast) to \(levelRange.upperBound) (small)."
    }

    /// "Write lossless WebP (the same pixels as PNG output) instead of lossy."
    public static var lossless: String {
        let lossless = ImageCodecs.all.filter(\.controls.lossless).map(\.displayName)
        // Formats that are lossless by nature: no quality, one frame.
        let exact = ImageCodecs.all.filter { $0.controls.quality == nil && !$0.animates }.map(\.displayName)
        return "Write lossless \(ImageCodecs.list(lossless, "or")) (the same pixels as "
            + "\(ImageCodecs.list(exact, "or")) output) instead of lossy."
    }

    /// "AVIF, HEIC, JPEG XL and WebP effort, 0 (fast) to 9 (small) (default: ...)."
    public static var effort: String {
        let codecs = ImageCodecs.all.filter { $0.controls.effort != nil }
        let defaults = codecs.map { "\($0.controls.effort!.defaultValue) for \($0.displayName)" }
        return "\(ImageCodecs.list(codecs.map(\.displayName), "and")) encoder effort, "
            + "\(effortRange.lowerBound) (fast) to \(effortRange.upperBound) (small) (default: \(defaults.joined(separator: ", ")))."
    }

    /// "TIFF compression: none, lzw, deflate or jpeg (default: deflate)."
    public static var compression: String {
        ImageCodecs.all.compactMap { codec in
            codec.controls.compression.map {
                "\(codec.displayName) compression: \(ImageCodecs.list($0.choices, "or")) (default: \($0.defaultValue))."
            }
        }.joined(separator: " ")
    }

    /// Every compression name a codec takes.
    public static var compressionNames: [String] {
        var names: [String] = []
        for name in ImageCodecs.all.compactMap(\.controls.compression).flatMap(\.choices) where !names.contains(name) {
            names.append(name)
        }
        return names
    }

    /// "none, lzw, deflate or jpeg", for messages.
    public static var compressionChoices: String { ImageCodecs.list(compressionNames, "or") }

    /// Every effort a codec takes (0...9).
    public static var effortRange: ClosedRange<Int> { span(ImageCodecs.all.compactMap(\.controls.effort)) }

    /// Every quality a codec takes (1...100).
    public static var qualityRange: ClosedRange<Int> { span(ImageCodecs.all.compactMap(\.controls.quality)) }
    /// Every compression level a codec takes (0...9).
    public static var levelRange: ClosedRange<Int> { span(ImageCodecs.all.compactMap(\.controls.level)) }
    /// The level written when none is asked for.
    public static var defaultLevel: Int { ImageCodecs.all.compactMap(\.controls.level).first?.defaultValue ?? 0 }

    /// "1-100"
    public static func text(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)-\(range.upperBound)" }

    private static func span(_ controls: [IntegerControl]) -> ClosedRange<Int> {
        guard let low = controls.map(\.range.lowerBound).min(), let high = controls.map(\.range.upperBound).max()
        else { return 0...0 }
        return low...high
    }
}
