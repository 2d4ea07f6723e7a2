extension ColorMatrix {
    /// W3C Filter Effects 1 `grayscale(amount)`: amount 0…1 (clamped).
    public static func grayscale(_ amount: Double) -> ColorMatrix {
        let s = 1 - min(max(amount, 0), 1)
        return ColorMatrix([
            0.2126 + 0.7874 * s, 0.7152 - 0.7152 * s, 0.0722 - 0.0722 * s,
            0.2126 - 0.2126 * s, 0.7152 + 0.2848 * s, 0.0722 - 0.0722 * s,
            0.2126 - 0.2126 * s, 0.7152 - 0.7152 * s, 0.0722 + 0.9278 * s,
        ])
    }
}

extension FilterDefinition {
    static let grayscale = FilterDefinition(
        name: "grayscale", parameter: .amount(default: 1),
        description: "W3C grayscale(AMOUNT): AMOUNT 0-1 or 0%-100% towards Rec. 709 luma; default 1",
        color: { [.grayscale($0)] })
}
