import CatImageIO

// libFuzzer target: the WebP decoder (libwebp, WebPDemux and WebPAnimDecoder behind
// CWebPShim: the container, still and animated pictures, metadata chunks, limits) on any
// bytes that start like a WebP; row reading and every frame too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 { fuzzDecoder(data, size, format: .webp) }
