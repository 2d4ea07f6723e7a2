import CatImageIO

// libFuzzer target: the HEIF/AVIF pre-scan and libheif/libavif must read every file alike
// (HEIFAgreement, CHEIFShim/heif_agreement.c): any disagreement is a crash. Limits small
// enough that the dry decode of the primary (blank pictures, no codec) stays fast.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIFAgreement(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard size >= 12, bytes[4...7].elementsEqual("ftyp".utf8) else { return -1 }
    if case let .disagree(why) = HEIFAgreement.check(bytes, maxPixels: 4_000_000, maxFrames: 256) {
        fatalError("the pre-scan and the libraries disagree: \(why)")
    }
    return 0
}
