import CatImageIO
import CatSupport

/// The Detect Cat scene's logic: each image in turn, its faces or its error to the view.
/// The exit status is 0 when every image was read, else the first failure's (66 for a
/// missing file, 65 for one that is not an image...); the other images are still read.
@MainActor
public final class DetectCatPresenter {
    private let view: any DetectCatView
    private let interactor: any DetectCatInteractorInput

    public init(view: any DetectCatView, interactor: any DetectCatInteractorInput) {
        self.view = view
        self.interactor = interactor
    }

    public func run(_ request: DetectRequest) async -> ExitStatus {
        var status = ExitStatus.ok
        for input in request.inputs {
            do {
                view.showDetection(
                    try await interactor.detect(
                        input, maxPixels: request.maxPixels, maxFrames: request.maxFrames, mask: request.mask))
            } catch {
                let failure = SceneFailure(error)
                view.showError(failure, input: input)
                if status == .ok { status = failure.status }
            }
        }
        return status
    }
}
