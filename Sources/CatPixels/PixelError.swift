import CatSupport

/// What can go wrong with pixels themselves, whatever reads or writes them: a size that
/// cannot be, memory that is not there, a result over the pixel limit.
public enum PixelError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidSize(width: Int, height: Int)
    case outOfMemory(bytes: Int)
    /// A step of an edit would make an image over the pixel limit (a resize); refused before allocating.
    case outputTooLarge(width: Int, height: Int, limit: Int)
    /// A step of an edit would make an image with a side over `maxSide` (a resize by a
    /// percentage of a very wide picture).
    case outputTooLong(width: Int, height: Int)

    /// The longest side any picture may have, read or made, whatever the pixel limit:
    /// libvips's `VIPS_MAX_COORD`. A row costs memory in every stage (the decoder's strips,
    /// each filter's, the encoder's): a 40,000,000 x 1 PNG of 40 KB took 2.2 GB.
    public static let maxSide = 10_000_000

    public var description: String {
        switch self {
        case let .invalidSize(w, h): return "invalid image size \(w)x\(h)"
        case let .outOfMemory(bytes): return "out of memory allocating \(bytes) bytes"
        case let .outputTooLarge(w, h, limit):
            return "the edit would make a \(w)x\(h) image, \(Self.pixels(product: [w, h])), "
                + "over the limit of \(Self.pixels(limit))"
        case let .outputTooLong(w, h):
            return "the edit would make a \(w)x\(h) image, a side over 10,000,000 pixels, the longest catctl makes"
        }
    }

    /// The pixels of sizes multiplied together ("12.2 MP"), every step checked: a product
    /// past `Int`, or of a negative size, is "too many pixels", never a wrapped number.
    public static func pixels(product factors: [Int]) -> String {
        var total = 1
        for factor in factors {
            let (next, overflow) = total.multipliedReportingOverflow(by: factor)
            guard !overflow, factor >= 0 else { return "too many pixels" }
            total = next
        }
        return pixels(total)
    }

    /// "12.2 MP"; under 0.1 MP, "65536 pixels" (a limit of 255 is not "0.0 MP").
    public static func pixels(_ n: Int) -> String {
        n < 100_000 ? "\(n) pixel\(n == 1 ? "" : "s")" : String(printf: "%.1f MP", Double(n) / 1_000_000)
    }
}

/// An error type that holds a pixel failure as one of its cases: the codecs' (`ImageIOError`)
/// and the filter core's (`FilterError`).
public protocol PixelFailing: Error {
    static func pixels(_ error: PixelError) -> Self
}

extension PixelFailing {
    /// What `body` makes (a `PixelBuffer`); its pixel failure as this error.
    public static func allocating<T>(_ body: () throws(PixelError) -> T) throws(Self) -> T {
        do { return try body() } catch { throw pixels(error) }
    }
}
