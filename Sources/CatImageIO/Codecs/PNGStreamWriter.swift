internal import CPNGShim
import CatPixels
import CatSupport
import Dispatch

/// A PNG encoder that filters and deflates stripes of rows on several threads (as pigz
/// does for gzip) while rows keep arriving: every stripe but the last ends with a zlib
/// sync flush and is primed with the 32 KiB of data before it, so the joined pieces form
/// one zlib stream nearly as small as a serial one; the Adler-32 checksums are combined.
/// The file is an ordinary PNG: 8-bit RGB, or RGBA when the image has alpha (grey, one
/// channel, when asked: a mask), no
/// interlacing, adaptive row filters. Stripe boundaries depend only on the image height
/// and the thread count, so the same image always gives the same bytes.
final class PNGStreamWriter: RowEncoder {
    private let fd: Int32
    private let path: String
    private let width: Int, height: Int, hasAlpha: Bool, grey: Bool, level: Int
    private let channels: Int32
    private let stripeRows: Int
    /// Rows before a stripe that are filtered to prime the deflate dictionary (32 KiB).
    private let primerRows: Int
    /// The rows of the stripe being filled, after the primer rows (and the row before them).
    private let window: PixelBuffer
    private var rowsInWindow = 0
    private var nextRow = 0
    private var stripe = 0
    private let stripes: Int
    private let threads: Int
    /// Stripes filled but not yet compressed: compressed `threads` at a time with
    /// concurrentPerform, so the calling thread works too (it may be one of the only
    /// two threads of Swift's cooperative pool: blocking it would idle a core).
    private var pending: [@Sendable () -> Piece] = []
    /// Stripes compressed and not yet written, in order from `piecesWritten`.
    private var finished: [Piece] = []
    private var piecesWritten = 0
    private var adler: UInt32 = 1
    private var started = false
    private let metadata: ImageMetadata

    /// One stripe's deflated bytes (nil when deflating failed), their Adler-32 and how many
    /// filtered bytes they hold.
    struct Piece {
        var bytes: [UInt8]?, adler: UInt32 = 1, length = 0
    }

    init(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool, grey: Bool = false, level: Int,
        threads: Int, metadata: ImageMetadata = .none
    ) throws(ImageIOError) {
        self.fd = fd
        self.metadata = metadata
        self.path = path
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.level = level
        self.grey = grey
        channels = grey ? 1 : hasAlpha ? 4 : 3
        let rowBytes = cp_scanline_bytes(UInt32(width), channels, 1)
        primerRows = (32768 + rowBytes - 1) / rowBytes
        // Rows over 256 KiB (some 87,000 pixels) go a row at a time, one deflated at a time:
        // a 10,000,000 x 10 picture held 18 rows of 40 MB in its window and two stripes of
        // 4 rows waiting, over 1 GB for 10 rows.
        let wide = rowBytes > 256 << 10
        let threads = wide ? 1 : max(1, threads)
        // A stripe holds at least 64 KiB of rows (twice its primer): a picture 1 pixel wide
        // in stripes of 512 rows filtered and deflated 6,554 primer rows for each 512
        // (5 s for 9,961,473 rows). Rows of 4 KiB and more are as before.
        let fewest = max(16, (2 * 32768 + rowBytes - 1) / rowBytes)
        stripeRows =
            wide ? 1 : min(height, max(fewest, min(max(512, fewest), (height + 4 * threads - 1) / (4 * threads))))
        stripes = (height + stripeRows - 1) / stripeRows
        // The window keeps primer rows + one more (the filter's previous row) + a stripe.
        let windowRows = primerRows + 1 + stripeRows
        window = try ImageIOError.allocating { () throws(PixelError) in
            try PixelBuffer(width: width, height: windowRows, hasAlpha: hasAlpha)
        }
        self.threads = threads
    }

    func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError) {
        if !started { try writeHead() }
        var y = rows.lowerBound
        while y < rows.upperBound {
            // As many rows as the stripe has room for, in one copy where both are packed alike.
            let n = min(rows.upperBound - y, stripeRows - rowsInWindow, height - nextRow)
            Self.copyRows(from: buffer, y, to: window, primerRows + 1 + rowsInWindow, count: n, width: width)
            y += n
            rowsInWindow += n
            nextRow += n
            if rowsInWindow == stripeRows || nextRow == height { try submitStripe() }
        }
    }

    func finish() throws(ImageIOError) {
        if !started { try writeHead() }
        try compressPending()
        try OutputFile.writeAll(Self.chunk("IDAT", Self.bigEndian(adler)) + Self.chunk("IEND", []), to: fd, path: path)
    }

    private func writeHead() throws(ImageIOError) {
        started = true
        var head: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        head += Self.chunk(
            "IHDR",
            Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height)) + [8, grey ? 0 : hasAlpha ? 6 : 2, 0, 0, 0])
        head += try Self.metadataChunks(metadata)
        try OutputFile.writeAll(head, to: fd, path: path)
    }

    /// iCCP (zlib-compressed profile), eXIf (TIFF data), iTXt "XML:com.adobe.xmp" and a
    /// "Comment" (tEXt when it is Latin-1 without NULs, else iTXt when UTF-8): all before IDAT.
    static func metadataChunks(_ metadata: ImageMetadata) throws(ImageIOError) -> [UInt8] {
        var chunks: [UInt8] = []
        if let icc = metadata.iccProfile {
            chunks += chunk("iCCP", Array("ICC Profile".utf8) + [0, 0] + (try zlibCompress(icc)))
        }
        if let exif = metadata.exif { chunks += chunk("eXIf", exif) }
        if let xmp = metadata.xmp {
            // keyword, NUL, compression flag 0, method 0, empty language tag, NUL, empty translated keyword, NUL
            chunks += chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)
        }
        if let comment = metadata.comment, !comment.contains(0) {
            if String(validating: comment, as: UTF8.self) != nil, comment.contains(where: { $0 >= 0x80 }) {
                chunks += chunk("iTXt", Array("Comment".utf8) + [0, 0, 0, 0, 0] + comment)
            } else {
                chunks += chunk("tEXt", Array("Comment".utf8) + [0] + comment)
            }
        }
        return chunks
    }

    /// A whole zlib stream (header, deflate, Adler-32) of `data`.
    static func zlibCompress(_ data: [UInt8]) throws(ImageIOError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var adler: UInt32 = 1
        let code = data.withUnsafeBufferPointer {
            cp_deflate_piece($0.baseAddress, $0.count, nil, 0, 6, 1, &out, &length, &adler)
        }
        defer { free(out) }
        guard code == ShimCode.ok, let out else { throw .pixels(.outOfMemory(bytes: data.count)) }
        return [0x78, 0x9C] + Array(UnsafeBufferPointer(start: out, count: length)) + bigEndian(adler)
    }

    /// Hands the filled stripe to a thread, then slides the window: its last primer+1
    /// rows become what comes before the next stripe.
    private func submitStripe() throws(ImageIOError) {
        let s = stripe, count = rowsInWindow, last = s == stripes - 1
        let first = s * stripeRows
        // Window rows [primerRows + 1 - available, primerRows + 1) hold the image rows just
        // before this stripe: the deflate primer, and one more for the filters of its first row.
        let available = min(primerRows + 1, first)
        let primer = min(primerRows, first)
        let hasPrevious = available > primer
        let rows = try ImageIOError.allocating { () throws(PixelError) in
            try PixelBuffer(width: self.width, height: available + count, hasAlpha: hasAlpha)
        }
        Self.copyRows(from: window, primerRows + 1 - available, to: rows, 0, count: rows.height, width: width)
        let (width, channels, level) = (UInt32(self.width), self.channels, Int32(self.level))
        let dictionary = primer * cp_scanline_bytes(width, channels, 1)
        pending.append {
            var filtered = [UInt8](repeating: 0, count: cp_scanline_bytes(width, channels, UInt32(primer + count)))
            var rc = filtered.withUnsafeMutableBufferPointer {
                cp_filter_rows(
                    rows.base, rows.stride, width, hasPrevious ? 1 : 0, UInt32(primer + count), channels, $0.baseAddress
                )
            }
            var out: UnsafeMutablePointer<UInt8>?
            var outLength = 0
            var adler: UInt32 = 1
            if rc == ShimCode.ok {
                rc = filtered.withUnsafeBufferPointer { f in
                    cp_deflate_piece(
                        f.baseAddress! + dictionary, f.count - dictionary, dictionary > 0 ? f.baseAddress : nil,
                        dictionary, level, last ? 1 : 0, &out, &outLength, &adler)
                }
            }
            defer { free(out) }
            guard rc == ShimCode.ok, out != nil else { return Piece(bytes: nil) }
            return Piece(
                bytes: Array(UnsafeBufferPointer(start: out, count: outLength)), adler: adler,
                length: filtered.count - dictionary)
        }
        stripe += 1
        let keep = primerRows + 1, total = primerRows + 1 + count
        if total - keep >= keep {  // the rows kept do not overlap where they go
            Self.copyRows(from: window, total - keep, to: window, 0, count: keep, width: self.width)
        } else {
            for y in 0..<keep { window.row(y).update(from: window.row(total - keep + y), count: self.width * 4) }
        }
        rowsInWindow = 0
        if pending.count == threads { try compressPending() }
    }

    /// Rows `from..<from+count` of `source` into rows `to...` of `target`: one copy when the
    /// two have one stride (a narrow picture's rows are a few bytes each), else a row at a time.
    private static func copyRows(
        from source: PixelBuffer, _ from: Int, to target: PixelBuffer, _ to: Int, count: Int, width: Int
    ) {
        guard count > 0 else { return }
        if source.stride == target.stride {
            target.row(to).update(from: source.row(from), count: source.stride * (count - 1) + width * 4)
        } else {
            for k in 0..<count { target.row(to + k).update(from: source.row(from + k), count: width * 4) }
        }
    }

    private func compressPending() throws(ImageIOError) {
        let jobs = pending
        pending = []
        finished += concurrentMap(jobs.count, threads: jobs.count) { jobs[$0]() }
        try writeFinishedPieces()
    }

    /// Writes the pieces compressed so far, in order.
    private func writeFinishedPieces() throws(ImageIOError) {
        for piece in finished {
            guard let bytes = piece.bytes else { throw .pixels(.outOfMemory(bytes: width * 4 * stripeRows)) }
            let zlibHeader: [UInt8] =
                level <= 1 ? [0x78, 0x01] : level <= 5 ? [0x78, 0x5E] : level == 6 ? [0x78, 0x9C] : [0x78, 0xDA]
            try OutputFile.writeAll(
                Self.chunk("IDAT", (piecesWritten == 0 ? zlibHeader : []) + bytes), to: fd, path: path)
            adler = cp_adler32_combine(adler, piece.adler, piece.length)
            piecesWritten += 1
        }
        finished = []
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { cp_crc32(0, $0.baseAddress, $0.count) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
    }
}
