/// One step of a filter chain. Consecutive colour stages run fused, in one pass over
/// memory; a spatial stage reads its neighbours and so makes a pass of its own.
public enum FilterStage: Sendable, Equatable {
    case color(ColorMatrix)
    /// Gaussian blur with standard deviation `sigma` pixels.
    case blur(sigma: Double)
    /// Unsharp mask: the image plus `amount` times its difference from a blur of it.
    case sharpen(amount: Double)
    /// Darkening towards the corners by up to `amount` (0…1).
    case vignette(amount: Double)
}
