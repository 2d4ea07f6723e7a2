import CatFaces
import CatScenes
import CatSupport

/// `detect --json`: one `detected` line per image, or an `error` line naming it (docs/CLI.md).
@MainActor
public final class DetectCatJSONView: DetectCatView {
    private let json: JSONLineWriter

    public init(console: Console, wording: FailureWording = FailureWording()) {
        json = JSONLineWriter(console: console, wording: wording)
    }

    public func showDetection(_ detection: CatDetection) {
        let faces: [JSONValue] = detection.faces.map { face in
            .object([
                ("x", .int(face.x)), ("y", .int(face.y)), ("width", .int(face.width)), ("height", .int(face.height)),
                ("score", .double((face.score * 1000).rounded() / 1000)),
            ])
        }
        json.emit([
            ("event", .string("detected")), ("input", .string(detection.input)), ("width", .int(detection.width)),
            ("height", .int(detection.height)), ("faces", .array(faces)),
        ])
    }

    public func showError(_ failure: SceneFailure, input: String) {
        json.emitFailure(failure, context: [("input", .string(input))])
    }
}
