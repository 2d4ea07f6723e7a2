import ArgumentParser
import CatImageIO
import CatScenes
import CatSupport
import TerminalUI

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Apply a chain of filters to a \(ImageFormat.names) and save the result (or a gallery of every filter).",
        discussion: """
            Filters run in the order given, in one pass over the pixels. See `catctl filters` \
            for the names; a spec is NAME or NAME:VALUE (sepia, sepia:0.6, hue-rotate:90deg, \
            saturate:140%).
            The output format follows OUTPUT's extension (\(ImageFormat.extensionsWithCommas)) or \
            --format. INPUT may be - (stdin) and OUTPUT - (stdout, \(ImageFormat.standardOutput.displayName) \
            unless --format). The output is written to a temporary file and renamed, so a failed run leaves nothing.
            An animated \(ImageFormat.names(of: animated)) keeps every frame, its delay and the loop count when \
            OUTPUT is \(ImageFormat.extensions(of: animated)) (the chain runs on every frame); \
            \(ImageFormat.extensions(of: still, "and")) get the first frame.
            The ICC profile, EXIF (its orientation set to 1 once applied), XMP and comments are \
            kept; --strip drops all but the profile, --strip-all the profile too.

            Examples:
            \(HelpLayout.examples([
                ("catctl edit --filter sepia Resources/cats/chelsea.jpg sepia-cat.png", nil),
                ("catctl edit --filter saturate:1.4 --filter contrast:1.1 in.jpg out.jpg --quality 85", nil),
                ("cat in.png | catctl edit --filter invert - - > out.png", nil),
                ("catctl edit --gallery Resources/cats/chelsea.jpg gallery.png", nil),
                ("catctl edit -i Resources/cats/chelsea.jpg", "live: arrows pick, Enter adds, s saves"),
                ("catctl edit --filter sepia --lossless dance.gif dance.webp", nil),
            ]))
            """)

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp("A filter spec, NAME or NAME:VALUE; repeat to chain.", valueName: "spec"))
    var filters: [String] = []

    @Flag(help: "Write one contact sheet with every named filter applied to INPUT (in the order of `catctl filters`).")
    var gallery = false

    @Flag(
        name: [.short, .long],
        help: "Edit live in the terminal: pick filters, see them, save (keys: README, or ? once it runs).")
    var interactive = false

    /// The formats that hold animations, and those that hold one frame (for the help).
    static let animated = ImageFormat.all.filter(\.animates), still = ImageFormat.all.filter { !$0.animates }

    @Argument(help: ArgumentHelp("The image to edit (\(ImageFormat.names)), or - for standard input."))
    var input: String

    @Argument(
        help:
            ArgumentHelp(
                "Where to save: \(ImageFormat.extensionList), or - for standard output (with -i: the path `s` suggests)."
            )
    )
    var output: String?

    @OptionGroup var encoding: EncodingOptions

    @Option(
        help: ArgumentHelp(
            "Output format (default: from OUTPUT's extension; \(ImageFormat.standardOutput.fileExtension) for -).",
            valueName: "format"))
    var format: ImageFormat?

    @Flag(help: "Allow OUTPUT to be the same file as INPUT, or a terminal (image bytes on the screen).")
    var force = false

    @Flag(help: "Write JSON lines to stdout (last line: the result).")
    var json = false

    @Flag(
        name: .customLong("require-cat"),
        help:
            "A cat filter (cutout, sticker, portrait) that finds no cat fails (65, nothing written); else it leaves the picture as it is, with a note."
    )
    var requireCat = false

    @OptionGroup var limits: LimitOptions

    @OptionGroup var pictures: GraphicsOptions

    @Option(help: "Threads for the filters (default: all cores).")
    var threads: Int?

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if interactive {
            if gallery || json {
                throw ValidationError("--interactive shows its own gallery; it takes no --gallery or --json")
            }
            if format != nil {
                throw ValidationError("--interactive takes the format from the name you save to; it takes no --format")
            }
            if input == "-" || output == "-" {
                throw ValidationError("--interactive reads the keyboard: INPUT and OUTPUT must be files, not -")
            }
            try LiveTerminal.requireTerminal()
            if let output { _ = try OutputFormat.resolve(output, option: nil) }
            return
        }
        if gallery && !filters.isEmpty { throw ValidationError("--gallery applies every filter; it takes no --filter") }
        if !gallery && filters.isEmpty {
            throw ValidationError("give at least one --filter (see `catctl filters`), --gallery or --interactive")
        }
        guard let output else { throw ValidationError("give OUTPUT, where to save (or --interactive)") }
        if json && output == "-" { throw ValidationError("--json writes to stdout; it cannot be used with OUTPUT -") }
        try OutputFormat.refuseTerminal(output, force: force)
        _ = try OutputFormat.resolve(output, option: format)
    }

    func run() async throws {
        let threads = self.threads ?? CPUs.available
        if interactive {
            let resolved = try output.map { try OutputFormat.resolve($0, option: nil) } ?? .png
            let request = EditRequest(
                input: input, output: output ?? "", filters: filters, format: resolved, encoding: encoding.settings,
                force: force, maxPixels: try limits.maxPixels(), maxFrames: limits.maxFrames)
            try await LiveTerminal.edit(request, graphics: pictures.graphics, threads: threads).finish()
            return
        }
        guard let output else { throw ValidationError("give OUTPUT, where to save") }
        var request = EditRequest(
            input: input, output: output, filters: filters, format: try OutputFormat.resolve(output, option: format),
            encoding: encoding.settings, force: force, maxPixels: try limits.maxPixels(),
            maxFrames: limits.maxFrames)
        request.requireCat = requireCat
        let json = self.json, gallery = self.gallery, graphics = pictures.graphics
        let (presenter, columns, density) = await MainActor.run {
            let views = ViewFactory(
                console: Console.standard(graphics: graphics), json: json, wording: .commandLine(force: true))
            return (
                Router.makeEditCat(view: views.editCat(), interactor: EditCatInteractor(threads: threads)),
                views.picturesAllowed(output: output) ? min(views.console.columns, 160) : nil,
                // Pixels a column: chafa's symbols make shapes of 4 across; graphics protocols show real pixels.
                views.console.graphics.kind == .symbols ? 4 : 8
            )
        }
        let status =
            gallery
            ? await presenter.gallery(request, previewColumns: columns, pixelsPerColumn: density)
            : await presenter.edit(request)
        try status.finish()
    }
}
