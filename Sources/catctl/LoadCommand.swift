import ArgumentParser
import CatImageIO
import CatNetwork
import CatScenes
import CatSupport
import TerminalUI

struct Load: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch a random cat, show it in the terminal, save or edit it.",
        discussion: """
            Providers (the README shows each one's request and reply):
            \(providerHelp)

            Without -o the cat is only shown. With -o FILE the downloaded bytes are kept as they \
            are when FILE's extension is the cat's format (unless --strip asks for less metadata), \
            and re-encoded otherwise. With --filter the decoded cat goes straight to the edit \
            scene and the result is saved to -o (an animated cat: every frame, to \
            \(ImageFormat.extensions(of: ImageFormat.all.filter(\.animates)))).

            Examples:
            \(HelpLayout.examples([
                ("catctl load", nil),
                ("catctl load --provider folder -o cat.jpg", nil),
                ("catctl load --filter sepia -o sepia-cat.png", nil),
                ("catctl load --provider cataas --says \"hello\" -o hello.jpg", nil),
                ("catctl load -i --provider folder", "live: n next, e edit, s save, q quit"),
            ]))
            """)

    /// Each provider's row, as it declares it; the first is the default.
    static var providerHelp: String {
        HelpLayout.table(
            CatProviderKind.all.map { kind in
                (kind.name + (kind == .default ? " (default)" : ""), kind.help(imageFormats: ImageFormat.names))
            })
    }

    @Option(help: ArgumentHelp("Where cats come from.", valueName: "name"))
    var provider: CatProviderKind = .default

    @Option(help: ArgumentHelp("The provider's URL (a folder for folder).", valueName: "URL|DIR"))
    var endpoint: String?

    @Option(help: ArgumentHelp("cataas only: a cat saying TEXT (/cat/says/TEXT).", valueName: "TEXT"))
    var says: String?

    @Option(help: ArgumentHelp("cataas only: a cat with this tag (/cat/TAG).", valueName: "TAG"))
    var tag: String?

    @Option(name: .customLong("api-key"), help: "thecatapi key (default: CATCTL_API_KEY); never printed.")
    var apiKey: String?

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp("Save the cat (or the edited cat) here: \(ImageFormat.extensionList)."))
    var output: String?

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp("Edit the cat with this filter spec; repeat to chain. Needs -o.", valueName: "spec"))
    var filters: [String] = []

    @OptionGroup var encoding: EncodingOptions

    @Flag(help: "Write JSON lines to stdout (last line: the result).")
    var json = false

    @Flag(help: "Allow -o to be a terminal (-o - on a terminal, or a terminal device): image bytes on the screen.")
    var force = false

    @Flag(name: .customLong("no-preview"), help: "Do not draw the cat in the terminal.")
    var noPreview = false

    @Flag(
        name: [.short, .long],
        help: "Live in the terminal: n next cat, e edit, s save, q quit (all keys: README, or ? once it runs).")
    var interactive = false

    @Option(help: "Seconds for each HTTP attempt, connection included; also the longest wait between attempts.")
    var timeout: Double = 30

    @Option(
        help:
            "Retries (0-20) after a connection failure, HTTP 429 or 5xx; a Retry-After longer than --timeout fails at once."
    )
    var retries = 2

    @OptionGroup var limits: LimitOptions

    @OptionGroup var pictures: GraphicsOptions

    @Option(name: .customLong("max-bytes"), help: "Stop a download larger than this many bytes (default 52428800).")
    var maxBytes: Int = ProviderLimits().maxImageBytes

    @Option(
        name: .customLong("max-reply-bytes"), help: "Refuse an API reply larger than this many bytes (default 1048576)."
    )
    var maxReplyBytes: Int = ProviderLimits().maxJSONBytes

    func validate() throws {
        guard timeout.isFinite, (0.001...86_400).contains(timeout) else {
            throw ValidationError("--timeout must be between 0.001 and 86400 seconds")
        }
        guard (0...HTTPClientOptions.maxRetries).contains(retries) else {
            throw ValidationError("--retries must be 0 to \(HTTPClientOptions.maxRetries)")
        }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive") }
        guard maxReplyBytes > 0 else { throw ValidationError("--max-reply-bytes must be positive") }
        if json && output == "-" { throw ValidationError("--json writes to stdout; it cannot be used with -o -") }
        if let output { try OutputFormat.refuseTerminal(output, force: force) }
        if interactive {
            if json || output != nil || !filters.isEmpty || noPreview {
                throw ValidationError(
                    "--interactive saves with s and edits with e: it takes no -o, --filter, --json or --no-preview")
            }
            try LiveTerminal.requireTerminal()
        }
        if output == nil && !filters.isEmpty { throw ValidationError("--filter needs -o FILE to save the edited cat") }
        if !provider.takesQuery && (says != nil || tag != nil) {
            let names = CatProviderKind.all.filter(\.takesQuery).map(\.name)
            throw ValidationError(
                "--says and --tag ask \(names.joined(separator: " or ")) for a cat; "
                    + "use them with \(names.map { "--provider \($0)" }.joined(separator: " or "))")
        }
        if says?.isEmpty == true || tag?.isEmpty == true { throw ValidationError("--says and --tag need some text") }
        if let why = provider.endpointRequired, endpoint == nil {
            throw ValidationError("\(provider.name) \(why)")
        }
        _ = try outputFormat()
    }

    /// -o's format, from its extension (PNG for -).
    func outputFormat() throws -> ImageFormat? {
        guard let output else { return nil }
        if output == "-" { return .png }
        guard let format = ImageFormat(path: output) else {
            throw ValidationError("unknown output extension in '\(output)' (use \(ImageFormat.extensionList))")
        }
        return format
    }

    func run() async throws {
        var options = HTTPClientOptions()
        options.timeout = timeout
        options.connectTimeout = min(10, timeout)
        options.retries = retries
        options.userAgent = "catctl/\(Catctl.version)"
        let key = apiKey ?? ProcessInfo.processInfo.environment["CATCTL_API_KEY"]
        var providerLimits = ProviderLimits()
        providerLimits.maxImageBytes = maxBytes
        providerLimits.maxJSONBytes = maxReplyBytes
        // The folder provider's default is the bundled cats, found from this executable.
        let catProvider = CatProviders.make(
            provider, endpoint: endpoint ?? (provider.readsFolder ? BundledResources.catsDirectory() : nil),
            apiKey: key?.isEmpty == false ? key : nil,
            query: CatQuery(says: says, tag: tag),
            client: HTTPClient(options: options), limits: providerLimits,
            formats: Router.catImageFormats)
        var request = LoadRequest(
            provider: provider.name, output: output, format: try outputFormat(), filters: filters,
            encoding: encoding.settings,
            maxPixels: try limits.maxPixels(), maxFrames: limits.maxFrames, secrets: key.map { [$0] } ?? [])
        let json = self.json, noPreview = self.noPreview, output = self.output, graphics = pictures.graphics
        if interactive {
            try await LiveTerminal.load(request, provider: catProvider, graphics: graphics).finish()
            return
        }
        let presenter = await MainActor.run {
            let views = ViewFactory(console: Console.standard(graphics: graphics), json: json, wording: .commandLine())
            if views.picturesAllowed(output: output) && !noPreview {
                // Pixels per cell across: chafa's symbols look at 8x8 samples of a cell, and
                // the graphics protocols draw real pixels (the terminal scales them to the cells).
                let density = views.console.graphics.kind == .symbols ? 4 : 8
                request.previewWidth = min(views.console.columns - 1, 120) * density
                request.previewHeight = max(4, views.console.rows - 6) * 2 * density
            }
            let (view, editView) = views.loadCat(output: output)
            let presenter = Router.makeLoadCat(
                view: view, interactor: Router.makeLoadCatInteractor(provider: catProvider),
                editView: editView, editInteractor: EditCatInteractor())
            Interrupts.onInterrupt = { presenter.cancel() }  // false once the load is over: then a hard stop
            return presenter
        }
        try await presenter.load(request).finish()
    }
}
