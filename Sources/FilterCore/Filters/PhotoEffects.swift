// The photo effects of the original Load Cat / Edit Cat app (after Core Image's
// CIPhotoEffect* family), as catctl's own looks: each is a fixed chain of the W3C
// colour functions, so it is deterministic and runs in the same fused kernel.
// (`sepia` and `invert` are photo effects too; they live in Sepia.swift and Invert.swift.)

extension FilterDefinition {
    static let mono = FilterDefinition(
        name: "mono", parameter: .none,
        description: "Neutral black and white: Rec. 709 luma (grayscale)",
        color: { _ in [.grayscale(1)] })

    static let chrome = FilterDefinition(
        name: "chrome", parameter: .none,
        description: "Vivid colour: saturation x1.4, contrast x1.12",
        color: { _ in [.saturate(1.4), .contrast(1.12)] })

    static let transfer = FilterDefinition(
        name: "transfer", parameter: .none,
        description: "Warm vintage transfer print: amber cast, softer colour, a little contrast",
        color: { _ in [.channels(1.08, 1.0, 0.86), .saturate(0.85), .contrast(1.06)] })

    static let process = FilterDefinition(
        name: "process", parameter: .none,
        description: "Cool cross-processed film: blue-green cast, hue shifted, punchy contrast",
        color: { _ in [.channels(0.88, 1.0, 1.16), .hueRotate(degrees: -10), .contrast(1.14)] })

    static let noir = FilterDefinition(
        name: "noir", parameter: .none,
        description: "Film noir: black and white with hard contrast and deeper shadows",
        color: { _ in [.grayscale(1), .contrast(1.4), .brightness(0.95)] })

    static let instant = FilterDefinition(
        name: "instant", parameter: .none,
        description: "Instant-camera print: warm, bright, gently faded",
        color: { _ in [.sepia(0.2), .saturate(1.1), .contrast(0.9), .brightness(1.06)] })

    static let fade = FilterDefinition(
        name: "fade", parameter: .none,
        description: "Faded film: washed-out colour and lifted blacks",
        color: { _ in [.saturate(0.65), .contrast(0.78), .brightness(1.04)] })
}
