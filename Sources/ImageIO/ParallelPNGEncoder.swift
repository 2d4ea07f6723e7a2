import CPNGShim
import Dispatch
import Foundation

/// A PNG encoder that filters and deflates stripes of rows on several threads (as pigz
/// does for gzip): every stripe but the last ends with a zlib sync flush and is primed
/// with the 32 KiB before it, so the joined pieces form one zlib stream as good as a
/// serial one; the Adler-32 checksums are combined. The file is an ordinary PNG: 8-bit
/// RGB, or RGBA when the image has alpha, no interlacing, adaptive row filters.
enum ParallelPNGEncoder {
    static func encode(_ image: PixelBuffer, to fd: Int32, path: String, level: Int, threads: Int) throws(ImageIOError) {
        let channels: Int32 = image.hasAlpha ? 4 : 3
        let width = UInt32(image.width), height = image.height
        let rowBytes = cp_scanline_bytes(width, channels, 1)
        let stripeRows = max(16, min(512, (height + 4 * threads - 1) / max(1, 4 * threads)))
        let stripes = (height + stripeRows - 1) / stripeRows
        let dictionaryRows = (32768 + rowBytes - 1) / rowBytes

        final class Piece: @unchecked Sendable { var bytes: [UInt8] = []; var adler: UInt32 = 1; var length = 0; var failed = false }
        let pieces = (0..<stripes).map { _ in Piece() }
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: min(max(1, threads), stripes)) { _ in
            while true {
                let s = next.increment()
                guard s < stripes else { return }
                let first = s * stripeRows, count = min(stripeRows, height - first)
                let primer = min(first, dictionaryRows)
                // The primer rows are filtered only to serve as the deflate dictionary.
                var filtered = [UInt8](repeating: 0, count: cp_scanline_bytes(width, channels, UInt32(primer + count)))
                filtered.withUnsafeMutableBufferPointer {
                    cp_filter_rows(image.base, image.stride, width, UInt32(first - primer), UInt32(primer + count), channels, $0.baseAddress)
                }
                let dictionaryLength = primer * rowBytes
                var out: UnsafeMutablePointer<UInt8>?
                var outLength = 0
                var adler: UInt32 = 1
                let rc = filtered.withUnsafeBufferPointer { f in
                    cp_deflate_piece(f.baseAddress! + dictionaryLength, f.count - dictionaryLength,
                                     dictionaryLength > 0 ? f.baseAddress : nil, dictionaryLength,
                                     Int32(level), s == stripes - 1 ? 1 : 0, &out, &outLength, &adler)
                }
                let piece = pieces[s]
                if rc != Int32(CP_OK) || out == nil { piece.failed = true; continue }
                piece.bytes = Array(UnsafeBufferPointer(start: out, count: outLength))
                piece.adler = adler
                piece.length = filtered.count - dictionaryLength
                free(out)
            }
        }
        if pieces.contains(where: \.failed) { throw .outOfMemory(bytes: image.byteCount) }

        var adler: UInt32 = 1
        for piece in pieces { adler = cp_adler32_combine(adler, piece.adler, piece.length) }
        let zlibHeader: [UInt8] = level <= 1 ? [0x78, 0x01] : level <= 5 ? [0x78, 0x5E] : level == 6 ? [0x78, 0x9C] : [0x78, 0xDA]

        var head: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        head += chunk("IHDR", bigEndian(width) + bigEndian(UInt32(height)) + [8, image.hasAlpha ? 6 : 2, 0, 0, 0])
        try OutputFile.writeAll(head, to: fd, path: path)
        for (i, piece) in pieces.enumerated() {
            try OutputFile.writeAll(chunk("IDAT", (i == 0 ? zlibHeader : []) + piece.bytes), to: fd, path: path)
        }
        try OutputFile.writeAll(chunk("IDAT", bigEndian(adler)) + chunk("IEND", []), to: fd, path: path)
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { cp_crc32(0, $0.baseAddress, $0.count) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
    }
}

/// Hands out work items to threads: 0, 1, 2, ...
package final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    package init() {}
    /// Returns the current value and adds one.
    package func increment() -> Int { lock.withLock { defer { value += 1 }; return value } }
}
