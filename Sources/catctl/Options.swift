import ArgumentParser
import CatImageIO
import CatNetwork
import CatScenes
import CatSupport
import FilterCore
import TerminalUI

// Options shared by several commands, and the types the parser reads: every value is
// parsed and checked here, once; the scenes get it ready to use.

/// --quality, --png-level, --lossless, --effort, --compression, --strip and --strip-all, for
/// every command that encodes.
struct EncodingOptions: ParsableArguments {
    // Each setting's help, range and checks are what the codecs declare (EncoderSetting):
    // a setting is its option line here and its line in `asked`.
    @Option(help: EncoderSetting.quality.argumentHelp) var quality: Int?
    @Option(name: .customLong("png-level"), help: EncoderSetting.level.argumentHelp) var pngLevel: Int?
    @Flag(help: EncoderSetting.lossless.argumentHelp) var lossless = false
    @Option(help: EncoderSetting.effort.argumentHelp) var effort: Int?
    @Option(help: EncoderSetting.compression.argumentHelp) var compression: String?

    /// The settings given on the command line.
    var asked: [EncoderSetting: SettingValue] {
        [
            .quality: quality.map(SettingValue.integer), .level: pngLevel.map(SettingValue.integer),
            .lossless: lossless ? .flag(true) : nil, .effort: effort.map(SettingValue.integer),
            .compression: compression.map(SettingValue.choice),
        ].compactMapValues { $0 }
    }

    @Flag(help: "Drop EXIF, XMP and comments from the output; keep the ICC profile, so colours do not change.")
    var strip = false

    @Flag(
        name: .customLong("strip-all"),
        help: "Drop all metadata, the ICC profile too (viewers then show the pixels as sRGB).")
    var stripAll = false

    func validate() throws {
        for setting in EncoderSetting.allCases {
            if let value = asked[setting], let problem = setting.problem(with: value) {
                throw ValidationError(problem)
            }
        }
        if lossless, quality != nil { throw ValidationError("--lossless takes no --quality") }
    }

    var settings: EncodeSettings { EncodeSettings(asked, metadata: stripAll ? .stripAll : strip ? .strip : .keep) }
}

extension EncoderSetting {
    var argumentHelp: ArgumentHelp { ArgumentHelp(help, valueName: valueName) }
}

/// --max-pixels, else CATCTL_MAX_PIXELS, else the decoder's default; --max-frames.
struct LimitOptions: ParsableArguments {
    @Option(
        name: .customLong("max-pixels"),
        help:
            "Refuse images with more pixels than this, every frame of an animation counted (default 100000000, or CATCTL_MAX_PIXELS)."
    )
    var option: Int?

    @Option(name: .customLong("max-frames"), help: "Refuse animations with more frames than this.")
    var maxFrames: Int = DecodeOptions.defaultMaxFrames

    @Option(
        name: .customLong("formats"),
        help: ArgumentHelp(
            "Decode only these formats, e.g. jpeg,png,webp (or CATCTL_FORMATS): every other file is refused (65) "
                + "before its decoder runs.",
            valueName: "list"))
    var formats: String?

    /// Checks the limits and sets the process's decoder allow-list (`DecoderAllowList`, as
    /// libvips's VIPS_BLOCK_UNTRUSTED is process-wide) from --formats, else CATCTL_FORMATS.
    func validate() throws {
        _ = try maxPixels()
        guard maxFrames > 0 else { throw ValidationError("--max-frames must be positive") }
        try applyFormats()
    }

    func applyFormats(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let (list, source) = formats.map { ($0, "--formats") } ?? (environment["CATCTL_FORMATS"], "CATCTL_FORMATS")
        guard let list else { return DecoderAllowList.set(nil, source: source) }
        switch DecoderAllowList.parse(list) {
        case let .success(allowed): DecoderAllowList.set(allowed, source: source)
        case let .failure(failure):
            let names = ImageFormat.all.map(\.name).joined(separator: ", ")
            throw ValidationError(
                "\(source) names '\(ForeignText.visible(failure.word))', which is not a format catctl reads (\(names))")
        }
    }

    func maxPixels(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        if let option {
            guard option > 0 else { throw ValidationError("--max-pixels must be positive") }
            return option
        }
        if let text = environment["CATCTL_MAX_PIXELS"] {
            guard let value = Int(text), value > 0 else {
                throw ValidationError("CATCTL_MAX_PIXELS must be a positive whole number, not '\(text)'")
            }
            return value
        }
        return DecodeOptions.defaultMaxPixels
    }
}

/// --graphics, for the commands that draw pictures (load, edit --gallery, the live scenes).
struct GraphicsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How pictures are drawn: auto (detected; only on a terminal), kitty, iterm, sixel, symbols or none. "
                + "A mode given by name draws even when stdout is not a terminal.",
            valueName: "mode"))
    var graphics: GraphicsMode = .auto
}

extension GraphicsMode: ExpressibleByArgument {}

/// What the command line says about the remedies scenes name.
extension FailureWording {
    /// `force`: the command has --force (edit).
    static func commandLine(force: Bool = false) -> FailureWording {
        var hints: [FailureHint: String] = [
            .raisePixelLimit: "raise it with --max-pixels or CATCTL_MAX_PIXELS",
            .raiseDownloadLimit: "see --max-bytes, --max-reply-bytes",
        ]
        if force { hints[.overwriteInput] = "use --force to overwrite it" }
        return FailureWording(hints: hints)
    }
}

enum OutputFormat {
    /// The output's format: `--format`, else OUTPUT's extension; PNG (`standardOutput`) for standard output.
    static func resolve(_ output: String, option: ImageFormat?) throws -> ImageFormat {
        let fromExtension = output == "-" ? nil : ImageFormat(path: output)
        if let option {
            if let fromExtension, fromExtension != option {
                throw ValidationError("--format \(option.fileExtension) contradicts the extension of \(output)")
            }
            return option
        }
        if output == "-" { return .standardOutput }
        guard let fromExtension else {
            throw ValidationError(
                "unknown output extension in '\(output)' (use \(ImageFormat.extensionList), or --format)")
        }
        return fromExtension
    }

    /// Image bytes never go to a terminal unless asked (as curl refuses binary output):
    /// they would be garbage on the screen, and a file's text chunks could act as escape codes.
    static func refuseTerminal(_ output: String, force: Bool) throws {
        if !force && OutputFile.isTerminal(output) {
            throw ValidationError("refusing to write image data to a terminal; redirect it or give --force")
        }
    }
}

extension ImageFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(fileExtension: argument) }
    public static var allValueStrings: [String] { all.map(\.fileExtension) }
}

/// `batch --format`: `same` keeps each input's format.
enum BatchFormat: ExpressibleByArgument, CaseIterable, Equatable {
    case same
    case format(ImageFormat)

    init?(argument: String) {
        if argument.lowercased() == "same" {
            self = .same
        } else if let format = ImageFormat(argument: argument) {
            self = .format(format)
        } else {
            return nil
        }
    }

    static var allCases: [BatchFormat] { [.same] + ImageFormat.all.map { .format($0) } }
    static var allValueStrings: [String] { ["same"] + ImageFormat.allValueStrings }

    var format: ImageFormat? {
        if case let .format(format) = self { return format }
        return nil
    }
}

extension CatProviderKind: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { all.map(\.name) }
}

extension KernelISA: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "avx512": self = .avx512
        case "avx2": self = .avx2
        case "sse4.1", "sse41": self = .sse41
        case "baseline", "sse2", "neon", "scalar": self = .baseline
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["avx512", "avx2", "sse4.1", "baseline"] }
}

/// `--shard K/N`, or `auto/N`: K from the array job the task runs in (Shard.fromArrayJob).
enum ShardOption: ExpressibleByArgument {
    case fixed(Shard)
    case auto(count: Int)

    init?(argument: String) {
        if argument.hasPrefix("auto/"), let count = Int(argument.dropFirst(5)), count >= 1 {
            self = .auto(count: count)
        } else if let shard = Shard(argument) {
            self = .fixed(shard)
        } else {
            return nil
        }
    }

    /// The shard, `auto` resolved from `environment`.
    func resolved(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Shard {
        switch self {
        case let .fixed(shard): return shard
        case let .auto(count):
            switch Shard.fromArrayJob(count: count, environment: environment) {
            case let .success(shard): return shard
            case let .failure(failure): throw ValidationError(failure.message)
            }
        }
    }
}
