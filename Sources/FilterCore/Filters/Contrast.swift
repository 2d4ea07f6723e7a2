extension ColorMatrix {
    /// W3C Filter Effects 1 `contrast(amount)`: the linear function
    /// amount·x + (0.5 − 0.5·amount); amount ≥ 0.
    public static func contrast(_ amount: Double) -> ColorMatrix {
        .linear(slope: amount, intercept: 0.5 - 0.5 * amount)
    }
}

extension FilterDefinition {
    static let contrast = FilterDefinition(
        name: "contrast", parameter: .factor(default: 1),
        description: "W3C contrast(FACTOR): 0 flat grey, 1 unchanged, above 1 more contrast; default 1",
        showcase: "1.5",
        color: { [.contrast($0)] })
}
