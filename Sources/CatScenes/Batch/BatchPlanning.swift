import CatImageIO
import CatSupport

/// Which inputs go where: shards, and output names that never collide, never escape the
/// output folder and never overwrite an input.
public enum BatchPlanning {
    /// The shard (0-based) an input belongs to: FNV-1a of its path, so every machine
    /// agrees whatever order it lists the inputs in.
    public static func shard(of input: String, count: Int) -> Int {
        shard(ofBytes: FileNames.encode(input), count: count)
    }

    static func shard<C: Collection<UInt8>>(ofBytes path: C, count: Int) -> Int {
        Int(fnv1a(bytes: path) % UInt64(count))
    }

    /// `DIR/<relative path>` with the output's extension (the format asked for, else the
    /// input's), for each input. Names are decided from the whole list of inputs, before
    /// any sharding, and only by what each input's path says, so every shard of a run, in
    /// any order, names every file the same way. Inputs that would meet at one name (or at
    /// another input's path) are told apart by their own paths: the one already in the
    /// output format keeps `x.jpg`, the others become `x-png.jpg`; where that is still not
    /// enough, `x-png-3fa2c1.jpg` (the end of a hash of the input's path). Names are
    /// compared case-folded (a case-insensitive file system would make one file of
    /// `A.png` and `a.png`).
    public static func outputs(for inputs: [BatchInput], directory: String, format: ImageFormat?) -> [String] {
        var list = BatchInputs(limit: BatchInputs.maxLimit)
        // The list's index of each input (a path given twice is one input).
        let index = inputs.map { (try? list.add($0)) ?? 0 }
        let outputs = BatchOutputs(list, directory: directory, format: format)
        return index.map { outputs.output($0) }
    }

    /// FNV-1a of a path's bytes (a name that is not UTF-8 hashes its own bytes, `FileNames`).
    static func fnv1a(_ text: String) -> UInt64 { fnv1a(bytes: FileNames.encode(text)) }

    static func fnv1a<C: Collection<UInt8>>(bytes: C) -> UInt64 { FileNames.hash(bytes: bytes) }

    /// `path` made absolute (from the working folder, read once) with "." and ".." segments
    /// and repeated slashes resolved by its text alone, as `URL.standardizedFileURL` does
    /// but without a system call a path (it stat'ed and asked for the working folder each
    /// time: 45 µs an input). A key is what it says: "a//b" is not "a/b".
    static func standardized(_ path: String) -> String {
        FileNames.decode(standardized(bytes: FileNames.encode(path)[...]))
    }

    static func standardized(bytes path: ArraySlice<UInt8>) -> [UInt8] {
        if isObjectStorage(path) { return Array(path) }
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var out: [UInt8] = []
        out.reserveCapacity(path.count + (path.first == slash ? 0 : workingFolder.count + 1))
        var starts: [Int] = []  // where each part kept so far starts in `out` (its "/")
        func take(_ bytes: ArraySlice<UInt8>) {
            var at = bytes.startIndex
            while at < bytes.endIndex {
                var end = at
                while end < bytes.endIndex, bytes[end] != slash { end += 1 }
                let length = end - at
                if length == 0 || (length == 1 && bytes[at] == dot) {
                    // nothing: "//" and "/./"
                } else if length == 2 && bytes[at] == dot && bytes[at + 1] == dot {
                    if let last = starts.popLast() { out.removeSubrange(last...) }
                } else {
                    starts.append(out.count)
                    out.append(slash)
                    out.append(contentsOf: bytes[at..<end])
                }
                at = end + 1
            }
        }
        if path.first != slash { take(workingFolder[...]) }
        take(path)
        return out.isEmpty ? [slash] : out
    }

    /// Whether the bytes start with "s3://", any case (`ObjectStorage.names`).
    static func isObjectStorage(_ path: ArraySlice<UInt8>) -> Bool {
        path.count >= 5 && zip(path, "s3://".utf8).allSatisfy { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) == $1 }
    }

    private static let workingFolder: [UInt8] = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return Array("/".utf8) }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    }()
}

/// The output of every input of a batch, planned once from the whole list (see
/// `BatchPlanning.outputs`): one byte an input (how far its name was moved from the plain
/// one), the names made when asked for. Refused inputs get no output. Names are made from
/// bytes (a name in ASCII, the usual case, makes no string at all until it is shown):
/// 10⁷ inputs plan in seconds.
public struct BatchOutputs: Sendable {
    public let inputs: BatchInputs
    public let directory: String
    public let format: ImageFormat?
    /// 0: the plain name; 1: `x-png.jpg`; 2: `x-png-3fa2c1.jpg`.
    private var levels: [UInt8]

    public init(_ inputs: BatchInputs, directory: String, format: ImageFormat?) {
        self.inputs = inputs
        self.directory = directory
        self.format = format
        levels = [UInt8](repeating: 0, count: inputs.count)
        plan()
    }

    /// The output of input `i` ("" for a refused input).
    public func output(_ i: Int) -> String {
        guard inputs.refusal(i) == nil else { return "" }
        return path(i, level: Int(levels[i]))
    }

    private func path(_ i: Int, level: Int) -> String {
        let relative = FileNames.decode(name(i).relative(level: level))
        return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    private func name(_ i: Int) -> Name { Name(inputs.relativePathBytes(i), path: inputs.pathBytes(i), format: format) }

    /// Each pass moves every input caught in a clash one step further from the plain name;
    /// decisions depend on the set of inputs only, never on their order. Inputs are grouped
    /// by a hash of their case-folded output (kept, and made again only for those moved),
    /// then by the output itself: a few bytes an input, not a dictionary of strings.
    private mutating func plan() {
        // The folder standardized once: an output's standardized path is it, "/", and the
        // output's path below it (whose parts are never "." or "..").
        var folder = BatchPlanning.standardized(bytes: FileNames.encode(directory)[...])
        if folder.last != UInt8(ascii: "/") { folder.append(UInt8(ascii: "/")) }
        // The inputs' own paths (standardized) that lie in the output folder, by hash: an
        // output may not be one of them. (Usually none: the inputs are elsewhere.)
        var inputPaths: [UInt64] = []
        for i in 0..<inputs.count where inputs.refusal(i) == nil {
            let path = BatchPlanning.standardized(bytes: inputs.pathBytes(i))
            if path.starts(with: folder) { inputPaths.append(FileNames.hash(bytes: path)) }
        }
        inputPaths.sort()
        func isInput(_ hash: UInt64) -> Bool {
            var low = 0, high = inputPaths.count
            while low < high {
                let mid = (low + high) / 2
                if inputPaths[mid] < hash { low = mid + 1 } else { high = mid }
            }
            return low < inputPaths.count && inputPaths[low] == hash
        }
        var keyed: [(hash: Int, index: Int32)] = []
        keyed.reserveCapacity(inputs.count - inputs.refusals.count)
        for i in 0..<inputs.count where inputs.refusal(i) == nil {
            keyed.append((name(i).foldedHash(level: 0), Int32(i)))
        }
        for _ in 0..<3 {
            keyed.sort { ($0.hash, $0.index) < ($1.hash, $1.index) }
            var next = levels
            var moved: [Int] = []
            var start = 0
            while start < keyed.count {
                var end = start + 1
                while end < keyed.count, keyed[end].hash == keyed[start].hash { end += 1 }
                // Inputs whose hashes meet are told apart by their names themselves.
                var groups: [[Int]]
                if end - start == 1 {
                    if inputPaths.isEmpty {  // no clash possible
                        start = end
                        continue
                    }
                    groups = [[Int(keyed[start].index)]]
                } else {
                    var byName: [String: [Int]] = [:]
                    for k in start..<end {
                        let i = Int(keyed[k].index)
                        byName[FileNames.decode(name(i).relative(level: Int(levels[i]))).lowercased(), default: []]
                            .append(i)
                    }
                    groups = Array(byName.values)
                }
                for members in groups {
                    let first = members[0]
                    let clash =
                        members.count > 1
                        || {
                            let output = folder + name(first).relative(level: Int(levels[first]))
                            guard isInput(FileNames.hash(bytes: output)) else { return false }
                            // Its own path is no clash (an input already where its output goes).
                            return BatchPlanning.standardized(bytes: output[...])
                                != BatchPlanning.standardized(bytes: inputs.pathBytes(first))
                        }()
                    guard clash else { continue }
                    let keepers = members.filter { levels[$0] == 0 && name($0).keepsExtension }
                    for i in members where levels[i] < 2 && !(members.count > 1 && keepers == [i]) {
                        next[i] = levels[i] + 1
                        moved.append(i)
                    }
                }
                start = end
            }
            levels = next
            if moved.isEmpty { break }
            let changed = Set(moved)
            for k in keyed.indices where changed.contains(Int(keyed[k].index)) {
                let i = Int(keyed[k].index)
                keyed[k].hash = name(i).foldedHash(level: Int(levels[i]))
            }
        }
    }

    /// An input's name, split: folder below the output folder, stem, extensions, as bytes.
    struct Name {
        let folder: [UInt8], stem: [UInt8], sourceExtension: [UInt8], outputExtension: [UInt8]
        let path: ArraySlice<UInt8>
        /// The input already has the output format's extension.
        let keepsExtension: Bool

        init(_ relativePath: ArraySlice<UInt8>, path: ArraySlice<UInt8>, format: ImageFormat?) {
            self.path = path
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
            // Only plain components: nothing lands outside the output folder. Most paths
            // have no empty, "." or ".." part: their folder is a slice as it is.
            var folder: [UInt8] = [], base: ArraySlice<UInt8> = []
            var plain = relativePath.first != slash && relativePath.last != slash
            var partStart = relativePath.startIndex, lastSlash: Int?
            if plain {
                for at in relativePath.indices where relativePath[at] == slash {
                    let part = relativePath[partStart..<at]
                    if part.isEmpty || (part.first == dot && (part.count == 1 || (part.count == 2 && part.last == dot)))
                    {
                        plain = false
                        break
                    }
                    lastSlash = at
                    partStart = at + 1
                }
            }
            let last = plain ? relativePath[partStart...] : []
            if plain, !(last.first == dot && (last.count == 1 || (last.count == 2 && last.last == dot))) {
                folder = lastSlash.map { Array(relativePath[...$0]) } ?? []
                base = last
            } else {
                var parts = relativePath.split(separator: slash)
                parts.removeAll { $0.elementsEqual([dot]) || $0.elementsEqual([dot, dot]) }
                folder = parts.dropLast().flatMap { $0 + [slash] }
                base = parts.last ?? ArraySlice("image".utf8)
            }
            var stem = Array(base), ext: [UInt8] = []
            if base.allSatisfy({ $0 < 0x80 }) {
                if let at = base.lastIndex(of: dot), at != base.startIndex {
                    stem = Array(base[..<at])
                    ext = base[(at + 1)...].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
                }
            } else {
                // Characters, as a person reads the name (a "." a mark sits on is no dot).
                let text = FileNames.decode(base)
                if let at = text.lastIndex(of: "."), at != text.startIndex {
                    stem = FileNames.encode(String(text[..<at]))
                    ext = FileNames.encode(String(text[text.index(after: at)...]).lowercased())
                }
            }
            if stem.isEmpty { stem = Array("image".utf8) }
            let (output, keeps) = Self.output(extension: ext, format: format)
            self.folder = folder
            self.stem = stem
            sourceExtension = ext
            outputExtension = output
            keepsExtension = keeps
        }

        /// The output's extension for an input's (lower-case), and whether they are one
        /// format's: looked up once an extension, not once an input.
        private static func output(extension ext: [UInt8], format: ImageFormat?) -> ([UInt8], Bool) {
            let key = Key(ext: ext, format: format)
            if let known = table.withLockedValue({ $0[key] }) { return known }
            let source = String(decoding: ext, as: UTF8.self)
            let output = format ?? ImageFormat(fileExtension: source) ?? .png
            let value = (Array(output.fileExtension.utf8), output.fileExtensions.contains(source))
            table.withLockedValue { if $0.count < 1000 { $0[key] = value } }
            return value
        }

        private struct Key: Hashable {
            let ext: [UInt8]
            let format: ImageFormat?
        }
        private static let table = LockedValue<[Key: ([UInt8], Bool)]>([:])

        func relative(level: Int) -> [UInt8] {
            var out = folder + stem
            let tag: [UInt8] = sourceExtension.isEmpty ? [] : [UInt8(ascii: "-")] + sourceExtension
            let hash = { Array(String(printf: "%06x", FileNames.hash(bytes: path) & 0xFF_FFFF).utf8) }
            switch level {
            case 0: break
            case 1: out += tag.isEmpty ? [UInt8(ascii: "-")] + hash() : tag
            default: out += tag + [UInt8(ascii: "-")] + hash()
            }
            return out + [UInt8(ascii: ".")] + outputExtension
        }

        /// A hash of the output's path below the folder, case-folded as `String.lowercased`
        /// folds it and equal for canonically equal names (Swift's own string hash), as the
        /// names are then compared.
        func foldedHash(level: Int) -> Int {
            let bytes = relative(level: level)
            if bytes.allSatisfy({ $0 < 0x80 }) {
                let folded = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
                return String(decoding: folded, as: UTF8.self).hashValue
            }
            return FileNames.decode(bytes).lowercased().hashValue
        }
    }
}
