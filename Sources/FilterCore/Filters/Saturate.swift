extension ColorMatrix {
    /// W3C Filter Effects 1 `saturate(s)` (feColorMatrix type="saturate"): s ≥ 0.
    public static func saturate(_ s: Double) -> ColorMatrix {
        ColorMatrix([
            0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s,
            0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s,
            0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s,
        ])
    }
}

extension FilterDefinition {
    static let saturate = FilterDefinition(
        name: "saturate", parameter: .factor(default: 1),
        description: "W3C saturate(FACTOR): 0 grey, 1 unchanged, above 1 more colourful; default 1",
        showcase: "1.8",
        color: { [.saturate($0)] })
}
