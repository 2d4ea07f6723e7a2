import ImageIO

/// What the user asked the Batch scene to do.
public struct BatchRequest: Sendable, Equatable {
    /// Files, folders (their JPEG/PNG files) or "-" (paths on standard input).
    public var inputs: [String]
    public var outputDirectory: String
    public var filters: [String]
    /// "same", "jpg" or "png".
    public var format: String
    /// Files in flight at once.
    public var jobs: Int
    public var quality: Int
    public var pngLevel: Int
    public var maxPixels: Int
    /// Process only the inputs of shard `index` (1-based) of `count`.
    public var shard: (index: Int, count: Int)?

    public init(inputs: [String], outputDirectory: String, filters: [String], format: String = "same", jobs: Int = 2,
                quality: Int = EncodeOptions.defaultJPEGQuality, pngLevel: Int = EncodeOptions.defaultPNGLevel,
                maxPixels: Int = DecodeOptions.defaultMaxPixels, shard: (index: Int, count: Int)? = nil) {
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

    public static func == (a: BatchRequest, b: BatchRequest) -> Bool {
        a.inputs == b.inputs && a.outputDirectory == b.outputDirectory && a.filters == b.filters && a.format == b.format
            && a.jobs == b.jobs && a.quality == b.quality && a.pngLevel == b.pngLevel && a.maxPixels == b.maxPixels
            && a.shard?.index == b.shard?.index && a.shard?.count == b.shard?.count
    }

    /// nil: keep each input's format.
    func outputFormat() throws(SceneError) -> ImageFormat? {
        switch format.lowercased() {
        case "same": return nil
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        default: throw .usage("--format must be same, jpg or png, not '\(format)'")
        }
    }
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
    public static func outputs(for inputs: [(path: String, format: ImageFormat?)], directory: String,
                               format: ImageFormat?) -> [String] {
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
