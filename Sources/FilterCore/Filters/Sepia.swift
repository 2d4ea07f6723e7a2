extension ColorMatrix {
    /// W3C Filter Effects 1 `sepia(amount)`: amount 0…1 (clamped).
    public static func sepia(_ amount: Double) -> ColorMatrix {
        let s = 1 - min(max(amount, 0), 1)
        return ColorMatrix([
            0.393 + 0.607 * s, 0.769 - 0.769 * s, 0.189 - 0.189 * s,
            0.349 - 0.349 * s, 0.686 + 0.314 * s, 0.168 - 0.168 * s,
            0.272 - 0.272 * s, 0.534 - 0.534 * s, 0.131 + 0.869 * s,
        ])
    }
}

extension FilterDefinition {
    /// One of the original app's photo effects, and the W3C function of the same name.
    static let sepia = FilterDefinition(
        name: "sepia", parameter: .amount(default: 1),
        description: "Warm brown old-photo tone; W3C sepia(AMOUNT), AMOUNT 0-1 or 0%-100%, default 1",
        color: { [.sepia($0)] })
}
