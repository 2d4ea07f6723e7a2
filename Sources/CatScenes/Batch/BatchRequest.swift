import ImageIO

/// What the user asked the Batch scene to do, checked by the command line already.
public struct BatchRequest: Sendable, Equatable {
    /// Files, folders (their images) or "-" (paths on standard input).
    public var inputs: [String]
    public var outputDirectory: String
    public var filters: [String]
    /// The outputs' format; nil keeps each input's.
    public var format: ImageFormat?
    /// Files in flight at once (at least 1).
    public var jobs: Int
    public var quality: Int
    public var pngLevel: Int
    public var maxPixels: Int
    /// Process only the inputs of this shard.
    public var shard: Shard?

    public init(
        inputs: [String], outputDirectory: String, filters: [String], format: ImageFormat? = nil, jobs: Int = 2,
        quality: Int = EncodeOptions.defaultJPEGQuality, pngLevel: Int = EncodeOptions.defaultPNGLevel,
        maxPixels: Int = DecodeOptions.defaultMaxPixels, shard: Shard? = nil
    ) {
        self.inputs = inputs
        self.outputDirectory = outputDirectory
        self.filters = filters
        self.format = format
        self.jobs = jobs
        self.quality = quality
        self.pngLevel = pngLevel
        self.maxPixels = maxPixels
        self.shard = shard
    }
}

/// Shard `index` (1-based) of `count`: the inputs whose path hashes to it.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// nil unless 1 ≤ index ≤ count.
    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`, as on the command line.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether `input` is this shard's to process.
    public func contains(_ input: String) -> Bool { BatchPlanning.shard(of: input, count: count) == index - 1 }
}

/// Which inputs go where: shards, and output names that never collide or escape.
public enum BatchPlanning {
    /// The shard (0-based) an input belongs to: FNV-1a of its path, so every machine
    /// agrees whatever order it lists the inputs in.
    public static func shard(of input: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in input.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(count))
    }

    /// `DIR/<input's base name>` with the output extension; a name already taken gets
    /// "-2", "-3", ... Names are reduced to a base name, so nothing lands outside DIR.
    public static func outputs(
        for inputs: [(path: String, format: ImageFormat?)], directory: String,
        format: ImageFormat?
    ) -> [String] {
        var taken = Set<String>()
        return inputs.map { input in
            let base = input.path.split(separator: "/").last.map(String.init) ?? "image"
            var stem = base
            if let dot = base.lastIndex(of: "."), dot != base.startIndex { stem = String(base[..<dot]) }
            if stem.isEmpty || stem == "." || stem == ".." { stem = "image" }
            let ext = (format ?? input.format ?? .png).fileExtension
            var name = "\(stem).\(ext)", n = 2
            while taken.contains(name.lowercased()) {
                name = "\(stem)-\(n).\(ext)"
                n += 1
            }
            taken.insert(name.lowercased())
            return directory.hasSuffix("/") ? directory + name : directory + "/" + name
        }
    }
}
