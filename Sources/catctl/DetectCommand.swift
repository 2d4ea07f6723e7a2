import ArgumentParser
import CatScenes
import TerminalUI

struct Detect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the cats' faces in images.",
        // The parser's own usage names every option on one line, wider than a terminal.
        usage: "catctl detect [<options>] <inputs> ...",
        discussion: """
            Prints the cat faces found in each IMAGE, in its pixels (upright): a line per face, \
            "IMAGE: face at X,Y, WxH, score S", or "IMAGE: no cat face"; with --json, one line \
            per image: {"event": "detected", "input": .., "width": .., "height": .., "faces": \
            [{"x": .., "y": .., "width": .., "height": .., "score": ..}]} (on one line, without \
            the spaces). The score (0-1) grows with the number of \
            overlapping windows that found the face. The detector is OpenCV's LBP and Haar \
            cat-face cascades (Joseph Howse), built in and run by catctl itself on a copy \
            320 px long: it finds frontal faces, some 4 in 10 of all faces in real photos, and \
            hardly anything else. An image that cannot be read is reported and the rest are \
            still read; the exit status is then that of the first failure.

            Examples:
            \(HelpLayout.examples([
                ("catctl detect cat.jpg", nil),
                ("catctl detect --json photos/*.jpg | jq -c 'select(.faces == [])'", nil),
            ]))
            """)

    @OptionGroup var limits: LimitOptions

    @Flag(help: "One JSON line per image.")
    var json = false

    @Argument(help: "The images.")
    var inputs: [String]

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one IMAGE") }
    }

    func run() async throws {
        let request = DetectRequest(inputs: inputs, maxPixels: try limits.maxPixels(), maxFrames: limits.maxFrames)
        let json = self.json
        let presenter = await MainActor.run {
            let views = ViewFactory(console: Console.standard(), json: json, wording: .commandLine())
            return Router.makeDetectCat(view: views.detectCat(), interactor: DetectCatInteractor())
        }
        try await presenter.run(request).finish()
    }
}
