/// A rectangle of a picture, in its pixels, with how sure whoever found it is (0-1): a cat's
/// face the detector found (CatFaces' `CatFace`), a subject a crop keeps in view and a
/// caption keeps off (FilterCore's `Subject`). One type, so neither layer converts the other's.
public struct ScoredRegion: Equatable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public var score: Double

    public init(x: Int, y: Int, width: Int, height: Int, score: Double) {
        (self.x, self.y, self.width, self.height, self.score) = (x, y, width, height, score)
    }

    /// The same region in a picture `factor` times as large.
    public func scaled(by factor: Double) -> ScoredRegion {
        func s(_ v: Int) -> Int { Int((Double(v) * factor).rounded()) }
        return ScoredRegion(x: s(x), y: s(y), width: s(width), height: s(height), score: score)
    }

    /// The same region in a picture `fx` times as wide and `fy` times as high, its edges
    /// rounded and kept inside `width` x `height` (at least a pixel each way).
    public func scaled(x fx: Double, y fy: Double, within width: Int, height: Int) -> ScoredRegion {
        func edge(_ v: Int, _ f: Double, _ limit: Int) -> Int { min(max(0, Int((Double(v) * f).rounded())), limit) }
        let left = min(edge(x, fx, width), width - 1), top = min(edge(y, fy, height), height - 1)
        let right = max(left + 1, edge(x + self.width, fx, width)),
            bottom = max(top + 1, edge(y + self.height, fy, height))
        return ScoredRegion(x: left, y: top, width: right - left, height: bottom - top, score: score)
    }

    /// Intersection over union with `other`.
    public func overlap(_ other: ScoredRegion) -> Double {
        let w = max(0, min(x + width, other.x + other.width) - max(x, other.x))
        let h = max(0, min(y + height, other.y + other.height) - max(y, other.y))
        let union = width * height + other.width * other.height - w * h
        return union > 0 ? Double(w * h) / Double(union) : 0
    }
}
