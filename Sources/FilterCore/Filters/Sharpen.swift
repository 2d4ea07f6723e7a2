extension FilterDefinition {
    /// The blur an unsharp mask subtracts.
    static let sharpenSigma = 1.0

    static let sharpen = FilterDefinition(
        name: "sharpen", parameter: .factor(default: 1), maximum: 20,
        description: "Unsharp mask: adds AMOUNT x (image - its blur of sigma 1) (0-20); default 1",
        stages: { [.sharpen(amount: $0)] })
}
