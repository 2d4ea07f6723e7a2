/// What a filter does to pixels.
public enum FilterKind: String, Sendable {
    /// Each pixel's new colour depends only on its old colour (fused into one pass).
    case color
    /// A pixel's new colour depends on its neighbours or its position.
    case spatial
    /// Pixels move: the size or the orientation changes (resize, crop, rotate, flip).
    case geometry
}

/// The value a filter takes after the colon in `NAME:VALUE`.
public enum FilterParameter: Sendable, Equatable {
    /// Takes no value.
    case none
    /// 0…1 or 0%…100%; larger values are clamped to 1, as the W3C spec says.
    case amount(default: Double)
    /// Any number ≥ 0, or a percentage.
    case factor(default: Double)
    /// Degrees, or a number with `deg`, `rad`, `grad` or `turn`.
    case angle(default: Double)
    /// Text with a syntax of the filter's own (`800x600`, `WxH+X+Y`); required.
    case text

    /// One ↑/↓ press in the live editor: a tenth for amounts and factors, 15 degrees.
    var step: Double? {
        switch self {
        case .none, .text: return nil
        case .amount, .factor: return 0.1
        case .angle: return 15
        }
    }

    public var defaultValue: Double? {
        switch self {
        case .none, .text: return nil
        case let .amount(d), let .factor(d), let .angle(d): return d
        }
    }

    /// How the value is written, unless the filter names it (`SIGMA`).
    var placeholder: String? {
        switch self {
        case .none, .text: return nil
        case .amount: return "AMOUNT"
        case .factor: return "FACTOR"
        case .angle: return "ANGLE"
        }
    }
}

/// A named filter of `catctl filters`: how to read its value and what it does.
public struct FilterDefinition: Sendable {
    public let name: String
    public let kind: FilterKind
    public let parameter: FilterParameter
    /// One line for `catctl filters`.
    public let description: String
    /// The stages for a value (the default when none is given).
    let stages: @Sendable (Double) -> [FilterStage]
    /// For a `.text` parameter: the stages for the text, or why it is not valid.
    let textStages: (@Sendable (String) throws(FilterError) -> [FilterStage])?
    /// The largest value accepted (FilterDefinition.maximumFactor when nil).
    let maximum: Double?
    /// How the value is written in help and messages: `SIGMA`, `AMOUNT`; nil when it takes none.
    public let valueName: String?
    /// The value the gallery shows the filter with, when not its default.
    let showcase: String?
    /// How far one ↑/↓ press moves a number value in the live editor (nil: the parameter's
    /// usual step, `FilterParameter.step`).
    let numberStep: Double?
    /// For a `.text` parameter: the values ↑/↓ go through in the live editor, for an image
    /// of this size (resize: fractions of the width); nil when the value is only typed.
    let presets: (@Sendable (_ width: Int, _ height: Int) -> [String])?
    /// For a `.text` parameter: the filter runs without one too (`cutout`), its parser then
    /// given "".
    let textIsOptional: Bool

    /// The largest factor any filter takes unless it says otherwise: far past any useful
    /// look, and small enough that every matrix entry stays finite.
    static let maximumFactor = 1000.0

    /// A spatial filter: one spatial stage for a value.
    init(
        name: String, parameter: FilterParameter, valueName: String? = nil, maximum: Double? = nil,
        kind: FilterKind = .spatial, description: String, showcase: String? = nil, step: Double? = nil,
        stage: @escaping @Sendable (Double) -> any SpatialStage
    ) {
        self.name = name
        self.showcase = showcase
        self.numberStep = step
        self.presets = nil
        self.textIsOptional = false
        self.kind = kind
        self.textStages = nil
        self.parameter = parameter
        self.valueName = valueName ?? parameter.placeholder
        self.maximum = maximum
        self.description = description
        self.stages = { [.spatial(stage($0))] }
    }

    /// A colour filter: a chain of colour matrices.
    init(
        name: String, parameter: FilterParameter, description: String, showcase: String? = nil,
        color: @escaping @Sendable (Double) -> [ColorMatrix]
    ) {
        self.name = name
        self.showcase = showcase
        self.numberStep = nil
        self.presets = nil
        self.textIsOptional = false
        self.kind = .color
        self.textStages = nil
        self.parameter = parameter
        self.valueName = parameter.placeholder
        self.maximum = nil
        self.description = description
        self.stages = { value in color(value).map { .color($0) } }
    }

    /// A filter whose value is text with a syntax of its own (`resize:800x600`): `parse`
    /// turns it into stages or throws a usage error saying what is wrong.
    init(
        name: String, valueName: String, kind: FilterKind = .geometry, description: String, showcase: String?,
        presets: (@Sendable (_ width: Int, _ height: Int) -> [String])? = nil, optional: Bool = false,
        parse: @escaping @Sendable (String) throws(FilterError) -> [FilterStage]
    ) {
        self.name = name
        self.showcase = showcase
        self.numberStep = nil
        self.presets = presets
        self.textIsOptional = optional
        self.kind = kind
        self.parameter = .text
        self.valueName = valueName
        self.maximum = nil
        self.description = description
        self.stages = { _ in [] }
        self.textStages = parse
    }

    /// The spec that shows off the filter (in `edit --gallery`): the default, unless the
    /// filter names a value that shows it better (the default leaves the picture as it is).
    public var showcaseSpec: String {
        showcase.map { "\(name):\($0)" } ?? name
    }

    /// How far one ↑/↓ press moves the value in the live editor; nil when it is not a number.
    public var step: Double? { numberStep ?? parameter.step }

    /// The largest number value the filter takes.
    public var maximumValue: Double {
        if case .amount = parameter { return 1 }
        return maximum ?? Self.maximumFactor
    }

    /// The values ↑/↓ go through for a text value on an image of this size; empty when
    /// the value can only be typed (a caption).
    public func presets(width: Int, height: Int) -> [String] {
        presets?(max(1, width), max(1, height)) ?? []
    }

    /// The spec for a number value, as a person would type it: `sepia:0.7`, `hue-rotate:105`.
    public func spec(value: Double) -> String {
        var text = String(printf: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return "\(name):\(text == "-0" ? "0" : text)"
    }

    /// `sepia[:AMOUNT]`, `blur[:SIGMA]`, `mono`.
    public var usage: String {
        guard let valueName else { return name }
        return parameter == .text && !textIsOptional ? "\(name):\(valueName)" : "\(name)[:\(valueName)]"
    }
}

/// Every filter catctl knows, in the order `catctl filters` lists them: the nine photo
/// effects of the original app, the other W3C Filter Effects functions, the spatial filters.
public enum FilterRegistry {
    public static let all: [FilterDefinition] = [
        .mono, .sepia, .invert, .chrome, .transfer, .process, .noir, .instant, .fade,
        .grayscale, .saturate, .hueRotate, .brightness, .contrast,
        .blur, .sharpen, .vignette, .convolve,
        .resize, .cover, .crop, .rotate, .flip, .flop,
        .caption, .captionTop, .captionBottom,
        .cutout, .sticker, .portrait,
    ]

    public static var names: [String] { all.map(\.name) }

    /// Every filter as it runs by its name alone, or with its showcase value when it needs
    /// one (`resize:160`), that applies to an image of this size: what `catctl bench` times
    /// by default.
    public static func defaultSpecs(width: Int, height: Int) -> [String] {
        all.map { $0.parameter == .text ? $0.showcaseSpec : $0.name }.filter { spec in
            (try? FilterChain(specs: [spec]).outputSize(width: width, height: height)) != nil
        }
    }

    public static func definition(named name: String) -> FilterDefinition? {
        all.first { $0.name == name }
    }

    /// The name closest to a mistyped one (two edits off, or a third of its letters), for
    /// "did you mean sepia?".
    public static func nearestName(to name: String) -> String? {
        let typed = Array(name.lowercased())
        let scored = names.map { ($0, editDistance(typed, Array($0))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 > 0, best.1 < typed.count,
            best.1 <= max(2, best.0.count / 3)
        else {
            return nil
        }
        return best.0
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
