import CatImageIO
// libFuzzer target: the --filter spec parser, and the chain it gives run on a small image
// (every kernel build), so odd values reach the kernels too; each input also with its
// numbers swapped for integer and floating-point extremes (abs(Int.min) trapped once).
import CatPixels
import FilterCore
import Foundation

/// Numbers a parser must refuse or clamp, never trap on: Int and Int32 edges, 19- and
/// 20-digit strings, floating-point edges.
let extremes = [
    "-9223372036854775808", "9223372036854775807", "-9223372036854775809", "99999999999999999999", "2147483648",
    "-2147483649", "4294967296", "-0", "0", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf", "1e9", "0x7fffffff",
]

/// The text with its numbers swapped for extremes: the first byte picks which numbers are
/// swapped (bit i for the i-th), the following bytes which extreme each gets.
func withExtremes(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
    guard let mask = bytes.first else { return text }
    var out = "", number = "", index = 0
    func flush() {
        guard !number.isEmpty else { return }
        if index < 8, mask & (1 << index) != 0 {
            let pick = bytes.count > index + 1 ? Int(bytes[index + 1]) : index
            out += extremes[pick % extremes.count]
        } else {
            out += number
        }
        number = ""
        index += 1
    }
    for ch in text {
        if ch.isNumber || ch == "-" || ch == "." { number.append(ch) } else { flush(); out.append(ch) }
    }
    flush()
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilterSpec(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    // The text as it is, then with its numbers at their extremes.
    run(specs: text, size: size)
    run(specs: withExtremes(text, bytes), size: size)
    return 0
}

func run(specs text: String, size: Int) {
    let specs = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(8).map(String.init)
    // As the edit use case does: a chain must fit the image, every step the pixel limit (here 1 MP, to keep the runs fast).
    guard let chain = try? FilterChain(specs: specs),
        let sizes = try? chain.sizes(width: 9, height: 5), sizes.largestPixels <= 1_000_000,
        let image = try? PixelBuffer(width: 9, height: 5, hasAlpha: true)
    else { return }
    for i in 0..<image.byteCount { image.base[i] = UInt8(truncatingIfNeeded: i &* 37 &+ size) }
    let isa = KernelISA.available[size % KernelISA.available.count]
    KernelISA.select(isa)
    _ = try? chain.apply(to: image, threads: 1)
}
