internal import CGIFShim
import CatPixels
import CatSupport
import Dispatch

extension ImageFormat {
    public static let gif = ImageFormat("gif")
}

/// GIF through giflib (CGIFShim): every frame in, composited as browsers show it
/// (disposal, local and global palettes, transparency, interlacing), with its delay and the
/// loop count; out, frames quantized to 256 colours with Floyd–Steinberg dithering (our own
/// quantizer, gif_quantize.c: giflib's does no dithering and no alpha), several frames at
/// once. GIF has no place for ICC profiles or EXIF that viewers read: none is written.
struct GIFCodec: AnimationCodec {
    var format: ImageFormat { .gif }
    var displayName: String { "GIF" }
    var fileExtensions: [String] { ["gif"] }
    /// 256 colours, dithered: nothing to choose.
    var controls: EncoderControls { [:] }
    var shrinksOnLoad: Bool { false }
    var keepsAlpha: Bool { false }
    var maxDimension: Int { 65535 }

    func recognizes(_ head: [UInt8]) -> Bool {
        head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8))
    }

    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder {
        try GIFRowDecoder(bytes: bytes, name: name, options: options)
    }

    func write(
        _ animation: Animation, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) {
        try checkSize(animation.width, animation.height, path: path)
        var frames = try Self.quantize(animation.frames, threads: options.threads)
        defer { for i in frames.indices { frames[i].free() } }
        guard
            let encoder = cg_encoder_create(
                fd, UInt32(animation.width), UInt32(animation.height), Int32(clamping: animation.loopCount ?? -1))
        else { throw .pixels(.outOfMemory(bytes: 0)) }
        defer { cg_encoder_destroy(encoder) }
        func check(_ code: Int32) throws(ImageIOError) {
            guard code != ShimCode.ok else { return }
            let message = String(cString: cg_encoder_message(encoder))
            if code == ShimCode.noMemory { throw .pixels(.outOfMemory(bytes: 0)) }
            if code == ShimCode.io {
                throw .writeFailed(path: path, reason: errnoReason(cg_encoder_errno(encoder), fallback: message))
            }
            throw .writeFailed(path: path, reason: "GIF encoder: \(message)")
        }
        for (frame, delay) in zip(frames, animation.delays) {
            try withUnsafePointer(to: frame.indexed) { (p: UnsafePointer<cg_indexed>) throws(ImageIOError) in
                try check(cg_encoder_write_frame(encoder, p, Int32(clamping: delay)))
            }
        }
        try check(cg_encoder_finish(encoder))
    }

    /// One frame reduced to a palette (owned: `free` releases its indices).
    struct Quantized {
        var indexed = cg_indexed()
        var code = ShimCode.ok
        mutating func free() { cg_indexed_free(&indexed) }
    }

    /// Every frame quantized, `threads` frames at a time (frames are independent).
    static func quantize(_ frames: [PixelBuffer], threads: Int) throws(ImageIOError) -> [Quantized] {
        var out = concurrentMap(frames.count, threads: threads) { i in
            var quantized = Quantized()
            let frame = frames[i]
            quantized.code = cg_quantize(
                frame.base, frame.stride, UInt32(frame.width), UInt32(frame.height), &quantized.indexed)
            return quantized
        }
        if out.contains(where: { $0.code != ShimCode.ok }) {
            for i in out.indices { out[i].free() }
            throw .pixels(.outOfMemory(bytes: frames[0].pixelCount))
        }
        return out
    }
}

final class GIFRowDecoder: WholePictureDecoder {
    let info: RowDecoderInfo
    let loopCount: Int?
    var rows = WholeImageRows()
    private let decoder: OpaquePointer
    private let name: String
    private var framesRead = 0

    init(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) {
        guard let d = bytes.withUnsafeBufferPointer({ cg_decoder_create($0.baseAddress, $0.count) }) else {
            throw .pixels(.outOfMemory(bytes: bytes.count))
        }
        var header = cg_info()
        // The scan stops at the screen when it alone is over the limit, and at the frame
        // after the frame limit; every frame together is checked below.
        let code = cg_decoder_scan(d, UInt64(options.maxPixels), UInt32(clamping: options.maxFrames), &header)
        let (width, height, frames) = (Int(header.width), Int(header.height), Int(header.frame_count))
        do throws(ImageIOError) {
            if code == ShimCode.limit, width > 0, height > 0, width * height > options.maxPixels {
                throw .tooLarge(file: name, width: width, height: height, limit: options.maxPixels)
            }
            if code == ShimCode.limit, frames > options.maxFrames { throw options.tooManyFrames(name: name) }
            guard code == ShimCode.ok else {
                throw ShimCode.decodeError(code, message: String(cString: cg_decoder_message(d)), name: name)
            }
            try options.checkLimit(width, height, frames: frames, name: name)
        } catch {
            cg_decoder_destroy(d)
            throw error
        }
        info = RowDecoderInfo(
            width: width, height: height, fullWidth: width, fullHeight: height, hasAlpha: header.has_alpha != 0,
            interlaced: true, frameCount: frames)
        loopCount = header.loop_count < 0 ? nil : Int(header.loop_count)
        decoder = d
        self.name = name
    }

    deinit { cg_decoder_destroy(decoder) }

    func nextFrame(into buffer: PixelBuffer) throws(ImageIOError) -> Int {
        var delay: Int32 = 0
        let code = cg_decoder_next_frame(decoder, buffer.base, buffer.stride, &delay)
        guard code == ShimCode.ok else {
            throw ShimCode.decodeError(code, message: String(cString: cg_decoder_message(decoder)), name: name)
        }
        framesRead += 1
        return Int(delay)
    }

    func readImage(into buffer: PixelBuffer) throws(ImageIOError) {
        precondition(framesRead == 0)
        _ = try nextFrame(into: buffer)
    }

}
