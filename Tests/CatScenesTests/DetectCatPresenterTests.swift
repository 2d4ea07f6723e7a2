import CatFaces
import CatImageIO
import CatScenes
import Testing

/// The Detect Cat presenter with a recording view and a scripted interactor: every image in
/// the order given, its faces or its error, and the first failure's status at the end.
@Suite("Detect Cat presenter")
@MainActor
struct DetectCatPresenterTests {
    final class RecordingDetectCatView: DetectCatView {
        enum Call: Equatable {
            case detection(CatDetection)
            case error(SceneFailure, String)
        }
        private(set) var calls: [Call] = []
        func showDetection(_ detection: CatDetection) { calls.append(.detection(detection)) }
        func showError(_ failure: SceneFailure, input: String) { calls.append(.error(failure, input)) }
    }

    /// Answers from a table: a detection, or an error to throw; records what it was asked.
    final class ScriptedInteractor: DetectCatInteractorInput, @unchecked Sendable {
        // @unchecked: written only by the test before the presenter runs, read by it after.
        let answers: [String: Result<CatDetection, ImageIOError>]
        private(set) var asked: [(String, Int, Int)] = []
        init(_ answers: [String: Result<CatDetection, ImageIOError>]) { self.answers = answers }
        func detect(_ path: String, maxPixels: Int, maxFrames: Int, mask: String?) async throws -> CatDetection {
            asked.append((path, maxPixels, maxFrames))
            return try answers[path]!.get()
        }
    }

    static let face = CatFace(x: 10, y: 20, width: 30, height: 30, score: 0.8)

    @Test func everyImageInOrderAndTheFirstFailuresStatus() async {
        let found = CatDetection(
            input: "a.jpg", width: 100, height: 80, cats: [FoundCat(box: Self.face, face: Self.face, head: Self.face)],
            faces: [Self.face])
        let none = CatDetection(input: "c.png", width: 5, height: 5, cats: [], faces: [])
        let interactor = ScriptedInteractor([
            "a.jpg": .success(found),
            "b.gif": .failure(.inputMissing(path: "b.gif")),
            "c.png": .success(none),
            "d.heic": .failure(.corrupt(file: "d.heic", reason: "bad")),
        ])
        let view = RecordingDetectCatView()
        let status = await DetectCatPresenter(view: view, interactor: interactor).run(
            DetectRequest(inputs: ["a.jpg", "b.gif", "c.png", "d.heic"], maxPixels: 1000, maxFrames: 3))
        #expect(
            view.calls == [
                .detection(found), .error(SceneFailure(ImageIOError.inputMissing(path: "b.gif")), "b.gif"),
                .detection(none), .error(SceneFailure(ImageIOError.corrupt(file: "d.heic", reason: "bad")), "d.heic"),
            ])
        #expect(status == .noInput, "the first failure's status (66), not the last's (65)")
        #expect(interactor.asked.map(\.0) == ["a.jpg", "b.gif", "c.png", "d.heic"])
        #expect(interactor.asked.allSatisfy { $0.1 == 1000 && $0.2 == 3 }, "the limits reach the interactor")
    }

    @Test func allReadIsOK() async {
        let view = RecordingDetectCatView()
        let status = await DetectCatPresenter(
            view: view,
            interactor: ScriptedInteractor([
                "x": .success(CatDetection(input: "x", width: 1, height: 1, cats: [], faces: []))
            ])
        ).run(DetectRequest(inputs: ["x"], maxPixels: 10, maxFrames: 1))
        #expect(status == .ok && view.calls.count == 1)
    }
}
