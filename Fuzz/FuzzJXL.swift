import CatImageIO

// libFuzzer target: the JPEG XL decoder (libjxl behind CJXLShim: codestream and container,
// metadata boxes and brob, frame headers counted against the limits, coalesced frames) on
// any bytes that start like JPEG XL; row reading and every frame too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJXL(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 { fuzzDecoder(data, size, format: .jxl) }
