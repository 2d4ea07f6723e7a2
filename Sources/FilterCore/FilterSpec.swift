import CatPixels
import CatSupport

/// What the filter core throws: a bad `--filter` argument (`description` names the filter
/// and what is valid: a usage error), or a stage that cannot run (pixels, the font).
public enum FilterError: PixelFailing, Equatable, Sendable, CustomStringConvertible {
    case unknownFilter(String)
    case badValue(filter: String, value: String, reason: String)
    /// A stage that cannot apply to the image it gets (a crop outside it).
    case doesNotFit(spec: String, width: Int, height: Int, reason: String)
    /// A buffer the edit needs cannot be had, or would be over the pixel limit.
    case pixels(PixelError)
    /// The caption font (CATCTL_FONT or the bundled one) cannot be read, or is no font.
    case fontUnreadable(path: String, reason: String)
    case notAFont(path: String, reason: String)
    /// A part of the installation the filters need is missing or unusable (the bundled font).
    case resourceMissing(String)
    /// `--require-cat`: a cat filter (`cutout`, `sticker`, `portrait`) found no cat.
    case noCat(filter: String)
    /// `--require-cat`, and the cats' mask cannot be made (its network is not installed).
    case noCatMask(filter: String)
    /// Cat filters on an animation of more frames than `maxMaskedFrames`.
    case tooManyFramesToMask(frames: Int, limit: Int)

    public var description: String {
        switch self {
        case let .unknownFilter(name):
            let suggestion = FilterRegistry.nearestName(to: name).map { " (did you mean \($0)?)" } ?? ""
            return
                "unknown filter '\(name)'\(suggestion); valid filters: \(FilterRegistry.names.joined(separator: ", "))"
        case let .badValue(filter, value, reason):
            let usage = FilterRegistry.definition(named: filter)?.usage ?? filter
            return "bad value '\(value)' for \(filter): \(reason) (usage: \(usage))"
        case let .doesNotFit(spec, width, height, reason):
            return "\(spec) does not fit the \(width)x\(height) image: \(reason)"
        case let .pixels(error): return error.description
        case let .fontUnreadable(path, reason): return "cannot read \(path): \(reason)"
        case let .notAFont(path, reason): return "cannot use \(path) as the caption font: \(reason)"
        case let .resourceMissing(what): return "cannot load \(what)"
        case let .noCat(filter): return "\(filter) found no cat (--require-cat)"
        case let .noCatMask(filter):
            return "\(filter) cannot make the cats' mask: the mask network cannot be read (--require-cat)"
        case let .tooManyFramesToMask(frames, limit):
            return
                "the cat filters make a mask a frame, at most \(limit) frames; this animation has \(frames) "
                + "(a still format takes the first frame)"
        }
    }
}

/// One parsed `--filter` argument: `NAME` or `NAME:VALUE`, resolved to its stages.
public struct Filter: Sendable {
    /// The argument exactly as given (`sepia:0.6`).
    public let spec: String
    public let definition: FilterDefinition
    /// The value in the filter's own unit (degrees for angles, 1 = 100%), or nil.
    public let value: Double?
    public let stages: [FilterStage]

    public init(parsing spec: String) throws(FilterError) {
        let name: String, text: String?
        // The first ":" scalar, not Character: a value starting with a combining mark makes
        // one Character of ":" and the mark (`caption:\u{301}a` read as an unknown filter).
        let scalars = spec.unicodeScalars
        if let colon = scalars.firstIndex(of: ":") {
            name = String(scalars[..<colon])
            text = String(scalars[scalars.index(after: colon)...])
        } else {
            name = spec
            text = nil
        }
        guard let definition = FilterRegistry.definition(named: name.lowercased()) else {
            throw .unknownFilter(name)
        }
        self.spec = spec
        self.definition = definition
        if let textStages = definition.textStages {
            if text == nil, definition.textIsOptional {
                self.value = nil
                self.stages = try textStages("")
                return
            }
            guard let text, !text.isEmpty else {
                throw .badValue(filter: definition.name, value: text ?? "", reason: "\(definition.name) needs a value")
            }
            self.value = nil
            self.stages = try textStages(text)
            return
        }
        let value = try Self.parseValue(text, for: definition)
        self.value = value
        self.stages = definition.stages(value ?? definition.parameter.defaultValue ?? 0)
    }

    /// A filter made from values by code (not parsed from an argument); `spec` is how
    /// messages name it.
    init(definition: FilterDefinition, spec: String, stages: [FilterStage]) {
        self.spec = spec
        self.definition = definition
        value = nil
        self.stages = stages
    }

    static func parseValue(_ text: String?, for definition: FilterDefinition) throws(FilterError) -> Double? {
        guard let text else { return definition.parameter.defaultValue }
        let name = definition.name
        func bad(_ reason: String) -> FilterError { .badValue(filter: name, value: text, reason: reason) }
        let trimmed = text.trimmingWhitespace().lowercased()

        switch definition.parameter {
        case .none:
            throw bad("\(name) takes no value")
        case .text:
            return nil  // parsed by the filter itself
        case .amount, .factor:
            let percent = trimmed.hasSuffix("%")
            guard let number = Self.number(percent ? String(trimmed.dropLast()) : trimmed) else {
                throw bad("not a number")
            }
            guard number >= 0 else { throw bad("must not be negative") }
            let value = percent ? number / 100 : number
            let maximum = definition.maximum ?? FilterDefinition.maximumFactor
            if value > maximum { throw bad("at most \(Int(maximum))") }
            if case .amount = definition.parameter { return min(value, 1) }
            return value
        case .angle:
            let units: [(String, Double)] = [("deg", 1), ("grad", 0.9), ("rad", 180 / .pi), ("turn", 360)]
            for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
                guard let number = Self.number(String(trimmed.dropLast(suffix.count))), (number * scale).isFinite else {
                    throw bad("not an angle")
                }
                return (number * scale).truncatingRemainder(dividingBy: 360)
            }
            guard let number = Self.number(trimmed) else { throw bad("not an angle") }
            return number.truncatingRemainder(dividingBy: 360)
        }
    }

    /// A finite decimal number (no hex, no inf/nan).
    static func number(_ text: String) -> Double? {
        guard !text.isEmpty,
            text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.e".contains($0)) }),
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }
}
