extension FilterDefinition {
    static let vignette = FilterDefinition(
        name: "vignette", parameter: .amount(default: 0.5),
        description: "Darkens towards the corners, by up to AMOUNT (0-1) at the very corner; default 0.5",
        stages: { [.vignette(amount: $0)] })
}

/// The squared, normalised distances from the centre that the vignette kernel and its
/// reference read: (x + 0.5 − w/2) / (w/2), squared, per column; the same per row.
/// Corners are at dx² + dy² = 2.
enum VignetteTables {
    static func squaredDistances(_ n: Int) -> [Float] {
        let half = Float(n) / 2
        return (0..<n).map { i in
            let d = (Float(i) + 0.5 - half) / half
            return d * d
        }
    }
}
