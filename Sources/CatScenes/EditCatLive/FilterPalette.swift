import FilterCore

/// Every filter the live editor offers, each at the value the user gave it with ↑/↓ (its
/// showcase value to begin with): the seed app's gallery of filters, with a value each.
struct FilterPalette: Sendable, Equatable {
    enum Value: Sendable, Equatable {
        case none
        case number(Double)
        /// A text value and, when it has them, the presets ↑/↓ go through.
        case text(String, presets: [String])
    }

    private(set) var values: [Value]

    /// For an image of `width` × `height` (the presets of resize, cover and crop are parts of it).
    init(width: Int, height: Int) {
        values = FilterRegistry.all.map { definition in
            switch definition.parameter {
            case .none: return .none
            case .amount, .factor, .angle:
                let showcase = definition.showcaseSpec.split(separator: ":").last.flatMap { Double($0) }
                return .number(showcase ?? definition.parameter.defaultValue ?? 0)
            case .text:
                let presets = definition.presets(width: width, height: height)
                let showcase = String(definition.showcaseSpec.dropFirst(definition.name.count + 1))
                // A size in pixels means little on an unknown image: half of it instead.
                let start = presets.contains(showcase) || presets.isEmpty ? showcase : presets[presets.count / 2]
                return .text(start, presets: presets)
            }
        }
    }

    var count: Int { values.count }

    /// The spec of filter `index` at its value: `sepia:0.7`, `mono`, `resize:2000`.
    func spec(_ index: Int) -> String {
        let definition = FilterRegistry.all[index]
        switch values[index] {
        case .none: return definition.name
        case let .number(value): return definition.spec(value: value)
        // A filter whose value is optional (`cutout`) and has none: its name alone.
        case let .text(text, _): return text.isEmpty ? definition.name : "\(definition.name):\(text)"
        }
    }

    var specs: [String] { (0..<count).map(spec) }

    /// Moves filter `index`'s value `steps` steps (negative: down), within its range: a
    /// number by the filter's step, a text value through its presets. False when nothing
    /// changed (no value, or at an end).
    mutating func step(_ index: Int, by steps: Int) -> Bool {
        let definition = FilterRegistry.all[index]
        switch values[index] {
        case .none:
            return false
        case let .number(value):
            guard let step = definition.step else { return false }
            var next = ((value + Double(steps) * step) / step).rounded() * step
            if case .angle = definition.parameter {
                next = next.truncatingRemainder(dividingBy: 360)
                if next < 0 { next += 360 }
            } else {
                next = min(max(next, 0), definition.maximumValue)
            }
            guard abs(next - value) > 1e-9 else { return false }
            values[index] = .number(next)
            return true
        case let .text(text, presets):
            guard !presets.isEmpty else { return false }
            let current = presets.firstIndex(of: text) ?? (steps > 0 ? -1 : presets.count)
            let next = min(max(current + steps, 0), presets.count - 1)
            guard next != current, presets[next] != text else { return false }
            values[index] = .text(presets[next], presets: presets)
            return true
        }
    }
}
