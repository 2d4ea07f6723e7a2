extension ColorMatrix {
    /// W3C Filter Effects 1 `brightness(amount)`: the linear function amount·x; amount ≥ 0.
    public static func brightness(_ amount: Double) -> ColorMatrix {
        .linear(slope: amount, intercept: 0)
    }
}

extension FilterDefinition {
    static let brightness = FilterDefinition(
        name: "brightness", parameter: .factor(default: 1),
        description: "W3C brightness(FACTOR): multiplies every channel by FACTOR (0 black, 1 unchanged); default 1",
        showcase: "1.3",
        color: { [.brightness($0)] })
}
