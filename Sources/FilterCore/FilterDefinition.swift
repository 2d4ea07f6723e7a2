/// What a filter does to pixels.
public enum FilterKind: String, Sendable {
    /// Each pixel's new colour depends only on its old colour (fused into one pass).
    case color
    /// A pixel's new colour depends on its neighbours or its position.
    case spatial
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

    public var defaultValue: Double? {
        switch self {
        case .none: return nil
        case let .amount(d), let .factor(d), let .angle(d): return d
        }
    }

    /// How the value is written, for help and error messages.
    public var placeholder: String? {
        switch self {
        case .none: return nil
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
    /// The largest value accepted (FilterDefinition.maximumFactor when nil).
    let maximum: Double?

    /// The largest factor any filter takes unless it says otherwise: far past any useful
    /// look, and small enough that every matrix entry stays finite.
    static let maximumFactor = 1000.0

    /// A spatial filter.
    init(name: String, parameter: FilterParameter, maximum: Double? = nil, description: String,
         stages: @escaping @Sendable (Double) -> [FilterStage]) {
        self.name = name
        self.kind = .spatial
        self.parameter = parameter
        self.maximum = maximum
        self.description = description
        self.stages = stages
    }

    /// A colour filter: a chain of colour matrices.
    init(name: String, parameter: FilterParameter, description: String,
         color: @escaping @Sendable (Double) -> [ColorMatrix]) {
        self.name = name
        self.kind = .color
        self.parameter = parameter
        self.maximum = nil
        self.description = description
        self.stages = { value in color(value).map { .color($0) } }
    }

    /// The spec that shows off the filter (in `edit --gallery`): the default, unless the
    /// default leaves the picture unchanged or barely changed.
    public var showcaseSpec: String {
        switch name {
        case "hue-rotate": return "hue-rotate:90"
        case "saturate": return "saturate:1.8"
        case "brightness": return "brightness:1.3"
        case "contrast": return "contrast:1.5"
        case "blur": return "blur:3"
        case "sharpen": return "sharpen:2"
        case "vignette": return "vignette:0.8"
        default: return name
        }
    }

    /// `sepia[:AMOUNT]`, `mono`.
    public var usage: String {
        parameter.placeholder.map { "\(name)[:\($0)]" } ?? name
    }
}

/// Every filter catctl knows, in the order `catctl filters` lists them: the nine photo
/// effects of the original app, the other W3C Filter Effects functions, the spatial filters.
public enum FilterRegistry {
    public static let all: [FilterDefinition] = [
        .mono, .sepia, .invert, .chrome, .transfer, .process, .noir, .instant, .fade,
        .grayscale, .saturate, .hueRotate, .brightness, .contrast,
        .blur, .sharpen, .vignette,
    ]

    public static var names: [String] { all.map(\.name) }

    public static func definition(named name: String) -> FilterDefinition? {
        all.first { $0.name == name }
    }
}
