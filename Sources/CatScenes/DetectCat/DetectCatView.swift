import CatFaces

/// What `catctl detect` found in one image: its size (upright), the cats (each with its
/// face when one was found in its box) and every cat face, in its pixels.
public struct CatDetection: Equatable, Sendable {
    public let input: String
    public let width: Int, height: Int
    public let cats: [FoundCat]
    public let faces: [CatFace]

    public init(input: String, width: Int, height: Int, cats: [FoundCat], faces: [CatFace]) {
        self.input = input
        self.width = width
        self.height = height
        self.cats = cats
        self.faces = faces
    }
}

/// The Detect Cat scene's Passive View: one call per image, in the order given.
@MainActor
public protocol DetectCatView: AnyObject {
    func showDetection(_ detection: CatDetection)
    /// This image could not be read; the others still are.
    func showError(_ failure: SceneFailure, input: String)
}

/// `catctl detect`: the inputs and the decoding limits.
public struct DetectRequest: Sendable {
    public let inputs: [String]
    public let maxPixels: Int
    public let maxFrames: Int

    public init(inputs: [String], maxPixels: Int, maxFrames: Int) {
        self.inputs = inputs
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
    }
}
