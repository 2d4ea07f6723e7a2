import CatImageIO
// libFuzzer target: the --filter spec parser, and the chain it gives run on a small image
// (every kernel build), so odd values reach the kernels too.
import FilterCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilterSpec(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let specs = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(8).map(String.init)
    // As the edit use case does: a chain must fit the image, every step the pixel limit (here 1 MP, to keep the runs fast).
    guard let chain = try? FilterChain(specs: specs),
        let sizes = try? chain.sizes(width: 9, height: 5), sizes.largestPixels <= 1_000_000,
        let image = try? PixelBuffer(width: 9, height: 5, hasAlpha: true)
    else { return 0 }
    for i in 0..<image.byteCount { image.base[i] = UInt8(truncatingIfNeeded: i &* 37 &+ size) }
    let isa = KernelISA.available[size % KernelISA.available.count]
    KernelISA.select(isa)
    _ = try? chain.apply(to: image, threads: 1)
    return 0
}
