// libFuzzer target: caption text through the text stack (fontconfig's fallback fonts,
// libraqm's itemisation and FriBidi's bidi, HarfBuzz's shaping, FreeType's glyphs and colour
// emoji) onto a small picture: each input as UTF-8 (unpaired surrogates and stray bytes
// included, which become U+FFFD), then as scalars of any plane, 3 bytes each (controls,
// joiners, marks, private use, unassigned), up to the caption's 1000-scalar limit.
import CatPixels
import FilterCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCaption(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    caption(String(decoding: bytes, as: UTF8.self), size: size)
    var scalars = String.UnicodeScalarView()
    for i in stride(from: 0, to: bytes.count - 2, by: 3) {
        let value = (UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])) % 0x11_0000
        if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
    }
    caption(String(scalars), size: size)
    return 0
}

func caption(_ text: String, size: Int) {
    let sides = ["caption-top:", "caption-bottom:"]
    guard let chain = try? FilterChain(specs: [sides[size % 2] + text]),
        let image = try? PixelBuffer(width: 160, height: 90, hasAlpha: false)
    else { return }
    image.fill(r: 90, g: 120, b: 150)
    _ = try? chain.apply(to: image, threads: 1)
}
