import CatSupport

extension ColorMatrix {
    /// W3C Filter Effects 1 `hue-rotate(angle)` (feColorMatrix type="hueRotate").
    public static func hueRotate(degrees: Double) -> ColorMatrix {
        let a = degrees * .pi / 180
        let c = cos(a), s = sin(a)
        return ColorMatrix([
            0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928,
            0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283,
            0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072,
        ])
    }
}

extension FilterDefinition {
    static let hueRotate = FilterDefinition(
        name: "hue-rotate", parameter: .angle(default: 0),
        description: "W3C hue-rotate(ANGLE): degrees, or with deg/rad/grad/turn; default 0",
        showcase: "90",
        color: { [.hueRotate(degrees: $0)] })
}
