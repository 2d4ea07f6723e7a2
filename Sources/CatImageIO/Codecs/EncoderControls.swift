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

    init(quality: IntegerControl? = nil, level: IntegerControl? = nil, lossless: Bool = false) {
        self.quality = quality
        self.level = level
        self.lossless = lossless
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
