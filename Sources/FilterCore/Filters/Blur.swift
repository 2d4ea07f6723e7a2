import Foundation

/// A Gaussian kernel in the fixed point of the blur kernel: radius ⌈3σ⌉, Q15 taps
/// (centre first) that sum to 32768 over the whole kernel.
public struct GaussianKernel: Sendable, Equatable {
    public static let maximumSigma = 100.0

    public let radius: Int
    /// weights[0] is the centre, weights[k] the taps at ±k.
    public let weights: [Int16]

    public init(sigma: Double) {
        guard sigma >= 0.3 else {  // narrower than a pixel: nothing to blur
            radius = 0
            weights = [Int16.max]
            return
        }
        let radius = Int((3 * sigma).rounded(.up))
        let g = (0...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = g[0] + 2 * g.dropFirst().reduce(0, +)
        var q = g.map { Int(($0 / total * 32768).rounded()) }
        q[0] = 32768 - 2 * q.dropFirst().reduce(0, +)  // the rounding remainder goes to the centre
        self.radius = radius
        self.weights = q.map { Int16(clamping: $0) }
    }
}

extension FilterDefinition {
    static let blur = FilterDefinition(
        name: "blur", parameter: .factor(default: 2), maximum: GaussianKernel.maximumSigma,
        description: "Gaussian blur, SIGMA in pixels (0-100; the kernel reaches 3 sigma); default 2",
        stages: { [.blur(sigma: $0)] })
}
