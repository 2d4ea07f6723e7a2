import CatImageIO

// libFuzzer target: the TIFF decoder (libtiff behind CTIFFShim: directories, strips and
// tiles, every photometric and bit depth it converts, the EXIF blob it builds, limits) on
// any bytes that start like TIFF; rows a strip at a time, as they stream.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 { fuzzDecoder(data, size, format: .tiff) }
