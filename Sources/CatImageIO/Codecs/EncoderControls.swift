/// A kind of encoder setting: what the command line calls it (its raw value, the option
/// without its dashes), how its value reads and how its help is worded. A codec declares the kinds its encoder takes (`EncoderControls`,
/// in its own file), each with its range and default; the options' help, their checks,
/// the man page and completions (made from the help) and the value an encoder reads
/// (`EncodeOptions.integer(_:)`, `.choice(_:)`, `.lossless`) all follow from those
/// declarations. A new kind is its case and its help here, and its option line and its
/// line in `asked` in catctl's EncodingOptions.
public enum EncoderSetting: String, CaseIterable, Sendable {
    /// The quality of lossy encoding.
    case quality
    /// A compression level: speed against size, the same pixels.
    case level = "png-level"
    /// The pixels exactly instead of lossy.
    case lossless
    /// How hard the encoder works for a smaller file at the same quality (libvips's name
    /// and scale: 0 fastest to 9 smallest).
    case effort
    /// A compression method chosen by name.
    case compression

    /// The option's help, from what the codecs declare:
    /// "JPEG and WebP quality, 1-100 (default: 90 for JPEG, 80 for WebP)."
    public var help: String {
        let names = ImageCodecs.list(codecs.map(\.displayName), "and")
        switch self {
        case .quality: return "\(names) quality, \(range.dashed) (default: \(defaults))."
        case .level:
            return "\(names) compression level, \(range.lowerBound) (fast) to \(range.upperBound) (small) "
                + "(default: \(defaults))."
        case .effort:
            return "\(names) encoder effort, \(range.lowerBound) (fast) to \(range.upperBound) (small) "
                + "(default: \(defaults))."
        case .lossless:
            // Formats that are lossless by nature: no quality, one frame.
            let exact = ImageCodecs.all.filter { $0.controls[.quality] == nil && !$0.animates }.map(\.displayName)
            return "Write lossless \(ImageCodecs.list(codecs.map(\.displayName), "or")) (the same pixels as "
                + "\(ImageCodecs.list(exact, "or")) output) instead of lossy."
        case .compression:
            return codecs.compactMap { codec in
                codec.controls.choices(.compression).map {
                    "\(codec.displayName) compression: \(ImageCodecs.list($0.names, "or")) (default: \($0.default))."
                }
            }.joined(separator: " ")
        }
    }

    /// The value's name in the help: "1-100", "none|lzw|deflate|jpeg"; nil for a flag.
    public var valueName: String? {
        switch controlKind {
        case .integer: range.dashed
        case .choice: choices.joined(separator: "|")
        case .flag: nil
        }
    }

    /// Why `value` is not one this setting takes (the option's message), or nil.
    public func problem(with value: SettingValue) -> String? {
        switch value {
        case let .integer(n) where !range.contains(n):
            return "--\(rawValue) must be \(range.dashed), not \(n)"
        case let .choice(name) where !choices.contains(name):
            return "--\(rawValue) must be \(ImageCodecs.list(choices, "or")), not \(name)"
        case .integer, .choice, .flag: return nil
        }
    }

    /// Every value a codec takes: the span of the declared ranges (quality 1...100).
    public var range: ClosedRange<Int> {
        let ranges = declared.compactMap { if case let .integer(range, _) = $0.control { range } else { nil } }
        guard let low = ranges.map(\.lowerBound).min(), let high = ranges.map(\.upperBound).max() else { return 0...0 }
        return low...high
    }

    /// Every name a codec takes, in the order declared (compression: none, lzw, deflate, jpeg).
    public var choices: [String] {
        var names: [String] = []
        for case let .choice(declared, _) in declared.map(\.control) {
            for name in declared where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The codecs that take this setting, in the registry's order.
    var codecs: [any ImageCodec] { declared.map(\.codec) }

    private var declared: [(codec: any ImageCodec, control: EncoderControl)] {
        ImageCodecs.all.compactMap { codec in codec.controls[self].map { (codec, $0) } }
    }

    /// "90 for JPEG, 80 for WebP"
    private var defaults: String {
        declared.compactMap { codec, control in control.defaultText.map { "\($0) for \(codec.displayName)" } }
            .joined(separator: ", ")
    }

    private var controlKind: EncoderControl.Kind { declared.first?.control.kind ?? .flag }
}

/// How a codec takes one setting.
public enum EncoderControl: Sendable, Equatable {
    /// A whole number in a range (a quality, a level, an effort), and its default.
    case integer(ClosedRange<Int>, default: Int)
    /// On or off; off unless asked (lossless).
    case flag
    /// One of a few names (TIFF's compression), and its default.
    case choice([String], default: String)

    enum Kind { case integer, flag, choice }
    var kind: Kind {
        switch self {
        case .integer: .integer
        case .flag: .flag
        case .choice: .choice
        }
    }

    var defaultValue: SettingValue {
        switch self {
        case let .integer(_, value): .integer(value)
        case .flag: .flag(false)
        case let .choice(_, value): .choice(value)
        }
    }

    var defaultText: String? {
        switch self {
        case let .integer(_, value): "\(value)"
        case .flag: nil
        case let .choice(_, value): value
        }
    }
}

/// What a codec's encoder can be told besides pixels and metadata, declared by the codec
/// itself (as Nuke's encoders carry their own settings):
/// `[.quality: .integer(1...100, default: 90), .lossless: .flag]`.
public struct EncoderControls: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    private let declared: [EncoderSetting: EncoderControl]

    public init(dictionaryLiteral elements: (EncoderSetting, EncoderControl)...) {
        declared = Dictionary(uniqueKeysWithValues: elements)
    }

    public subscript(_ setting: EncoderSetting) -> EncoderControl? { declared[setting] }

    /// An integer setting's range and default, when the codec takes it.
    public func integer(_ setting: EncoderSetting) -> (range: ClosedRange<Int>, default: Int)? {
        if case let .integer(range, value)? = declared[setting] { return (range, value) }
        return nil
    }

    /// A named setting's names and default, when the codec takes it.
    public func choices(_ setting: EncoderSetting) -> (names: [String], default: String)? {
        if case let .choice(names, value)? = declared[setting] { return (names, value) }
        return nil
    }
}

/// A setting's value as asked for: `--quality 85`, `--lossless`, `--compression lzw`.
public enum SettingValue: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByStringLiteral
{
    case integer(Int)
    case flag(Bool)
    case choice(String)

    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .flag(value) }
    public init(stringLiteral value: String) { self = .choice(value) }
}

extension ClosedRange<Int> {
    /// "1-100"
    var dashed: String { "\(lowerBound)-\(upperBound)" }
}
