import CatFaces
import CatImageIO
import CatPixels
import CatScenes
import CatSupport

/// `detect` for people and simple scripts, on stdout (docs/CLI.md): a line per cat,
/// `PATH: cat at X,Y, WxH, score S`, followed by `, face at X,Y, WxH, score S` when its
/// face was found, and `, mask at X,Y, WxH, N px` with `--mask` (the cat's part of the mask;
/// `, no mask` when the network saw none); a line per face that is no cat's, `PATH: face at
/// ...`; or `PATH: no cat`. Errors on stderr.
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
        func box(_ r: ScoredRegion) -> String {
            "at \(r.x),\(r.y), \(r.width)x\(r.height), score " + String(printf: "%.2f", r.score)
        }
        let alone = detection.faces.filter { face in !detection.cats.contains { $0.face == face } }
        guard !detection.cats.isEmpty || !alone.isEmpty else {
            console.stdout.write("\(name): no cat\n")
            return
        }
        for (i, cat) in detection.cats.enumerated() {
            var line = "\(name): cat \(box(cat.box))" + (cat.face.map { ", face \(box($0))" } ?? "")
            if let masks = detection.masks {
                if i < masks.count, let r = masks[i] {
                    line += ", mask at \(r.x),\(r.y), \(r.width)x\(r.height), \(r.pixels) px"
                } else {
                    line += ", no mask"
                }
            }
            console.stdout.write(line + "\n")
        }
        for face in alone { console.stdout.write("\(name): face \(box(face))\n") }
    }

    public func showError(_ failure: SceneFailure, input: String) {
        console.stderr.write(wording.errorLine(failure, color: console.color))
    }
}
