import CatFaces
import CatScenes
import CatSupport

/// `detect` for people and simple scripts: a line per face on stdout,
/// `PATH: face at X,Y, WxH, score S`, or `PATH: no cat face` (docs/CLI.md); errors on stderr.
@MainActor
public final class DetectCatTerminalView: DetectCatView {
    private let console: Console
    private let wording: FailureWording

    public init(console: Console, wording: FailureWording = FailureWording()) {
        self.console = console
        self.wording = wording
    }

    public func showDetection(_ detection: CatDetection) {
        let name = ForeignText.visible(detection.input)
        guard !detection.faces.isEmpty else {
            console.stdout.write("\(name): no cat face\n")
            return
        }
        for face in detection.faces {
            console.stdout.write(
                "\(name): face at \(face.x),\(face.y), \(face.width)x\(face.height), score "
                    + String(printf: "%.2f", face.score) + "\n")
        }
    }

    public func showError(_ failure: SceneFailure, input: String) {
        console.stderr.write(wording.errorLine(failure, color: console.color))
    }
}
