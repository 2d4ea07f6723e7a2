extension ColorMatrix {
    /// W3C Filter Effects 1 `invert(amount)`: the table [amount, 1 − amount], which is
    /// the linear function (1 − 2·amount)·x + amount; amount 0…1 (clamped).
    public static func invert(_ amount: Double) -> ColorMatrix {
        let a = min(max(amount, 0), 1)
        return .linear(slope: 1 - 2 * a, intercept: a)
    }
}

extension FilterDefinition {
    /// One of the original app's photo effects, and the W3C function of the same name.
    static let invert = FilterDefinition(
        name: "invert", parameter: .amount(default: 1),
        description: "Photographic negative; W3C invert(AMOUNT), AMOUNT 0-1 or 0%-100%, default 1",
        color: { [.invert($0)] })
}
