import ArgumentParser
import CatImageIO
import CatScenes
import TerminalUI

struct Detect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the cats and their faces in images.",
        // The parser's own usage names every option on one line, wider than a terminal.
        usage: "catctl detect [<options>] <inputs> ...",
        discussion: """
            Prints the cats found in each IMAGE, in its pixels (upright): a line per cat, \
            "IMAGE: cat at X,Y, WxH, score S", followed by ", face at X,Y, WxH, score S" when \
            its face was found; a line per face that is no cat's, "IMAGE: face at ..."; or \
            "IMAGE: no cat". With --json, one line per image: {"event": "detected", "input": \
            .., "width": .., "height": .., "cats": [{"x": .., "y": .., "width": .., "height": \
            .., "score": .., "face": {..} or null}], "faces": [{"x": .., "y": .., "width": .., \
            "height": .., "score": ..}]} (on one line, without the spaces). Cats are found by \
            Yolo-Fastest (a small COCO network, public domain weights), each box then checked \
            by an ImageNet classifier (EfficientNet-Lite0, Apache-2.0 weights) that drops \
            what is not a domestic cat (dogs, leopards, a lemur...), and faces by OpenCV's \
            LBP and Haar cat-face cascades (Joseph Howse), all run by catctl \
            itself on small copies: it finds most cats that are not small or hidden, and \
            frontal faces; small wild cats still pass for cats. An image that cannot be read is reported and the rest are still \
            read; the exit status is then that of the first failure.

            Examples:
            \(HelpLayout.examples([
                ("catctl detect cat.jpg", nil),
                ("catctl detect --json photos/*.jpg | jq -r 'select(.cats == []) | .input'", nil),
            ]))
            """)

    @OptionGroup var limits: LimitOptions

    @Flag(help: "One JSON line per image.")
    var json = false

    @Option(
        name: .customLong("mask"),
        help: ArgumentHelp(
            "Also write the cats' mask (one IMAGE) as an 8-bit grey PNG of its size: 255 cat, 0 not.",
            valueName: "file.png"))
    var mask: String?

    @Argument(help: "The images.")
    var inputs: [String]

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one IMAGE") }
        if let mask {
            if inputs.count != 1 { throw ValidationError("--mask takes one IMAGE") }
            if ImageFormat(path: mask) != .png { throw ValidationError("--mask writes a PNG: name it FILE.png") }
        }
    }

    func run() async throws {
        let request = DetectRequest(
            inputs: inputs, maxPixels: try limits.maxPixels(), maxFrames: limits.maxFrames, mask: mask)
        let json = self.json
        if let why = CatSubjects.unavailable {
            Console.standard().stderr.write("catctl: warning: \(ForeignText.visible(why)); finding faces only\n")
        } else if let why = CatSubjects.secondLookUnavailable {
            Console.standard().stderr.write(
                "catctl: warning: \(ForeignText.visible(why)); every cat box is kept unchecked\n")
        }
        let presenter = await MainActor.run {
            let views = ViewFactory(console: Console.standard(), json: json, wording: .commandLine())
            return Router.makeDetectCat(view: views.detectCat(), interactor: DetectCatInteractor())
        }
        try await presenter.run(request).finish()
    }
}
