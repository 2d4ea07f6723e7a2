import CatFaces
import CatImageIO
import CatModels
import CatPixels
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
        func box(_ region: ScoredRegion) -> [(String, JSONValue)] {
            [
                ("x", .int(region.x)), ("y", .int(region.y)), ("width", .int(region.width)),
                ("height", .int(region.height)), ("score", .double((region.score * 1000).rounded() / 1000)),
            ]
        }
        func mask(_ region: CatMask.Region?) -> JSONValue {
            guard let region else { return .null }
            return .object([
                ("x", .int(region.x)), ("y", .int(region.y)), ("width", .int(region.width)),
                ("height", .int(region.height)), ("area", .int(region.pixels)),
            ])
        }
        let cats: [JSONValue] = detection.cats.enumerated().map { i, cat in
            var fields = box(cat.box) + [("face", cat.face.map { .object(box($0)) } ?? .null)]
            if let masks = detection.masks { fields.append(("mask", mask(i < masks.count ? masks[i] : nil))) }
            return .object(fields)
        }
        json.emit([
            ("event", .string("detected")), ("input", .string(detection.input)), ("width", .int(detection.width)),
            ("height", .int(detection.height)), ("cats", .array(cats)),
            ("faces", .array(detection.faces.map { .object(box($0)) })),
        ])
    }

    public func showError(_ failure: SceneFailure, input: String) {
        json.emitFailure(failure, context: [("input", .string(input))])
    }
}
