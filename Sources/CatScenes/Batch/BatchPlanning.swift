import CatImageIO
import CatSupport

/// One input file of a batch and where its output goes below the output folder.
public struct BatchInput: Sendable, Equatable {
    public let path: String
    /// The output's path below the output folder, extension aside: the input's base name,
    /// or (from a folder walked with --recursive) its path below that folder.
    public let relativePath: String

    public init(path: String, relativePath: String? = nil) {
        self.path = path
        self.relativePath = relativePath ?? (FileNames.components(of: path).last ?? path)
    }
}

/// Which inputs go where: shards, and output names that never collide, never escape the
/// output folder and never overwrite an input.
public enum BatchPlanning {
    /// The shard (0-based) an input belongs to: FNV-1a of its path, so every machine
    /// agrees whatever order it lists the inputs in.
    public static func shard(of input: String, count: Int) -> Int {
        Int(fnv1a(input) % UInt64(count))
    }

    /// `DIR/<relative path>` with the output's extension (the format asked for, else the
    /// input's). Names are decided from the whole list of inputs, before any sharding, and
    /// only by what each input's path says, so every shard of a run, in any order, names
    /// every file the same way. Inputs that would meet at one name (or at another input's
    /// path) are told apart by their own paths: the one already in the output format keeps
    /// `x.jpg`, the others become `x-png.jpg`; where that is still not enough,
    /// `x-png-3fa2c1.jpg` (the end of a hash of the input's path).
    public static func outputs(for inputs: [BatchInput], directory: String, format: ImageFormat?) -> [String] {
        let names = inputs.map { Name($0, format: format) }
        let inputPaths = Set(inputs.map { standardized($0.path) })
        var level = [Int](repeating: 0, count: inputs.count)
        func path(_ i: Int) -> String {
            let relative = names[i].relative(level: level[i])
            return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
        }
        // Each pass moves every input caught in a clash one step further from the plain
        // name; decisions depend on the set of inputs only, never on their order.
        for _ in 0..<3 {
            var groups: [String: [Int]] = [:]
            for i in inputs.indices { groups[path(i).lowercased(), default: []].append(i) }
            var changed = false
            for members in groups.values {
                let clash =
                    members.count > 1
                    || (standardized(path(members[0])) != standardized(inputs[members[0]].path)
                        && inputPaths.contains(standardized(path(members[0]))))
                guard clash else { continue }
                let keepers = members.filter { level[$0] == 0 && names[$0].keepsExtension }
                for i in members where level[i] < 2 && !(members.count > 1 && keepers == [i]) {
                    level[i] += 1
                    changed = true
                }
            }
            if !changed { break }
        }
        return inputs.indices.map(path)
    }

    /// An input's name, split: folder below the output folder, stem, extensions.
    struct Name {
        let folder: String, stem: String, sourceExtension: String, outputExtension: String, hash: String
        /// The input already has the output format's extension.
        let keepsExtension: Bool

        init(_ input: BatchInput, format: ImageFormat?) {
            // Only plain components: nothing lands outside the output folder.
            let parts = FileNames.components(of: input.relativePath).filter { $0 != "." && $0 != ".." }
            let base = parts.last ?? "image"
            var stem = base, ext = ""
            if let dot = base.lastIndex(of: "."), dot != base.startIndex {
                stem = String(base[..<dot])
                ext = String(base[base.index(after: dot)...]).lowercased()
            }
            if stem.isEmpty { stem = "image" }
            let output = format ?? ImageFormat(fileExtension: ext) ?? .png
            folder = parts.dropLast().map { $0 + "/" }.joined()
            self.stem = stem
            sourceExtension = ext
            outputExtension = output.fileExtension
            keepsExtension = output.fileExtensions.contains(ext)
            hash = String(printf: "%06x", fnv1a(input.path) & 0xFF_FFFF)
        }

        func relative(level: Int) -> String {
            let tag = sourceExtension.isEmpty ? "" : "-" + sourceExtension
            switch level {
            case 0: return "\(folder)\(stem).\(outputExtension)"
            case 1: return "\(folder)\(stem)\(tag.isEmpty ? "-" + hash : tag).\(outputExtension)"
            default: return "\(folder)\(stem)\(tag)-\(hash).\(outputExtension)"
            }
        }
    }

    static func standardized(_ path: String) -> String {
        if ObjectStorage.names(path) { return path }  // a key is what it says: "a//b" is not "a/b"
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// FNV-1a of a path's bytes (a name that is not UTF-8 hashes its own bytes, `FileNames`).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in FileNames.encode(text) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
