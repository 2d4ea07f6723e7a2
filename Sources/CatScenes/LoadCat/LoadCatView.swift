import CatImageIO
import CatPixels

/// What the one-shot Load Cat scene shows (`catctl load`). Views implement every event
/// and hold no logic; the live scene's view adds its own (`LoadCatLiveView`).
@MainActor
public protocol LoadCatView: AnyObject {
    func updateLoadingState(_ state: LoadCatState)
    /// Bytes of the cat received so far (and expected, when the server said).
    func updateProgress(_ progress: LoadCatProgress)
    /// The provider said where the cat is (its size, when the reply gave it).
    func showCatFound(_ cat: LoadCatFound)
    /// The cat is downloaded and decoded: its real size and bytes.
    func showCatDecoded(_ cat: LoadCatDecoded)
    /// A small version of the cat for the terminal.
    func updateImage(_ image: LoadCatPreview)
    /// The end of a successful load (the last thing a script sees).
    func showLoaded(_ result: LoadCatResult)
    func showError(_ failure: SceneFailure)
}

public enum LoadCatState: Equatable, Sendable {
    case loading(provider: String)
    case downloading
    case decoding
    case saving(output: String)
    case done
    case failed
    case cancelled
}

public struct LoadCatProgress: Equatable, Sendable {
    public let received: Int64
    public let expected: Int64?
    public init(received: Int64, expected: Int64?) {
        self.received = received
        self.expected = expected
    }
}

public struct LoadCatFound: Equatable, Sendable {
    public let provider: String
    public let id: String?
    public let url: String
    /// As the provider's reply said, when it did.
    public let width: Int?
    public let height: Int?
    public init(provider: String, id: String?, url: String, width: Int?, height: Int?) {
        self.provider = provider
        self.id = id
        self.url = url
        self.width = width
        self.height = height
    }
}

public struct LoadCatDecoded: Equatable, Sendable {
    /// What the views call the cat: "thecatapi cat abc, Bengal" (`CatTitle`).
    public let title: String
    public let provider: String
    public let id: String?
    public let url: String
    public let width: Int
    public let height: Int
    public let bytes: Int
    /// The breed's name and temperament, when the provider said (TheCatAPI).
    public let breed: String?
    public let temperament: String?
    public init(
        provider: String, id: String?, url: String, width: Int, height: Int, bytes: Int,
        breed: String? = nil, temperament: String? = nil
    ) {
        title = CatTitle.title(provider: provider, id: id, breed: breed)
        self.provider = provider
        self.id = id
        self.url = url
        self.width = width
        self.height = height
        self.bytes = bytes
        self.breed = breed
        self.temperament = temperament
    }
}

public struct LoadCatPreview: Sendable, Equatable {
    /// Small: one pixel per terminal column, two per text row.
    public let pixels: PixelBuffer
    public init(pixels: PixelBuffer) { self.pixels = pixels }
    public static func == (a: LoadCatPreview, b: LoadCatPreview) -> Bool { a.pixels === b.pixels }
}

public struct LoadCatResult: Equatable, Sendable {
    /// The cat, as `showCatDecoded` told it.
    public let cat: LoadCatDecoded
    /// Where it was saved; nil when it was only shown.
    public let output: String?
    public init(cat: LoadCatDecoded, output: String?) {
        self.cat = cat
        self.output = output
    }
}
