import ArgumentParser
import ImageIO

/// --quality and --png-level, shared by every command that encodes.
struct EncodingOptions: ParsableArguments {
    @Option(help: "JPEG quality, 1-100.")
    var quality: Int = EncodeOptions.defaultJPEGQuality

    @Option(name: .customLong("png-level"), help: "PNG compression level, 0 (fast) to 9 (small).")
    var pngLevel: Int = EncodeOptions.defaultPNGLevel
}
