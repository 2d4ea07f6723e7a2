import CatImageIO
import CatPixels
import Foundation

/// Paths of the committed test fixtures (Tests/Fixtures) and helpers around them.
public enum Fixtures {
    /// Tests/Fixtures, found from this source file, so it works from any build folder.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The package root (for Resources/cats).
    public static let packageRoot: URL = root.deletingLastPathComponent().deletingLastPathComponent()

    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    public static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    public static func decode(_ relative: String, options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        try ImageDecoder.decode(bytes(relative), name: relative, options: options)
    }

    /// A new empty folder under the system temporary folder.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("catctl-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The bytes `body` writes to a new file descriptor (an encoder under test).
    public static func writtenBytes(_ body: (Int32) throws -> Void) throws -> [UInt8] {
        let path = try temporaryDirectory().appendingPathComponent("o").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        try body(fd)
        return try InputFile.read(path)
    }

    /// The names of the files in a folder, sorted.
    public static func contents(of dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }
}

/// Comparing pixels.
public struct PixelDifference: Sendable, CustomStringConvertible {
    public let maximum: Int
    public let mean: Double

    /// Differences of the RGB channels (alpha too when `alpha`), over packed RGBA bytes.
    public init(_ a: [UInt8], _ b: [UInt8], alpha: Bool = true) {
        precondition(a.count == b.count, "sizes differ: \(a.count) vs \(b.count)")
        var maximum = 0, sum = 0, count = 0
        for i in 0..<a.count where alpha || i % 4 != 3 {
            let d = abs(Int(a[i]) - Int(b[i]))
            maximum = max(maximum, d)
            sum += d
            count += 1
        }
        self.maximum = maximum
        self.mean = count == 0 ? 0 : Double(sum) / Double(count)
    }

    public var description: String { "max \(maximum), mean \(String(format: "%.3f", mean))" }
}

/// Deterministic pseudo-random images (SplitMix64), so a failure can be reproduced.
public struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension PixelBuffer {
    /// A buffer of random pixels (the padding bytes past each row random too).
    public static func random(width: Int, height: Int, seed: UInt64) throws -> PixelBuffer {
        let buffer = try PixelBuffer(width: width, height: height, hasAlpha: true)
        var rng = SeededRandom(seed: seed)
        for i in 0..<buffer.byteCount { buffer.base[i] = UInt8.random(in: 0...255, using: &rng) }
        return buffer
    }

    /// All bytes including row padding (to check that kernels stay inside rows).
    public func allBytes() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: byteCount)) }

    /// nil when every byte (padding included) equals `other`'s, else where they first differ.
    public func firstDifference(from other: PixelBuffer) -> String? {
        guard width == other.width, height == other.height, stride == other.stride else {
            return "shapes differ: \(width)x\(height)/\(stride) vs \(other.width)x\(other.height)/\(other.stride)"
        }
        for i in 0..<byteCount where base[i] != other.base[i] {
            let (y, x) = (i / stride, (i % stride) / 4)
            return "byte \(i) (pixel \(x),\(y) channel \(i % 4)): \(base[i]) vs \(other.base[i]) of \(byteCount)"
        }
        return nil
    }
}

extension PixelBuffer {
    /// The pixels as tightly packed RGBA bytes, row after row: what tests compare.
    public func packedRGBA() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                (dst.baseAddress! + y * width * 4).update(from: row(y), count: width * 4)
            }
        }
        return out
    }
}
