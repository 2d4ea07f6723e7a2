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
        guard let outputs = try? BatchOutputs(list, directory: directory, format: format) else { return [] }
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

    /// Whether the bytes start with "s3://", any case: what `Storages.store(for:)` finds
    /// S3's, on bytes and with no lock, since planning asks it once an input (up to 10^7).
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
/// bytes (a name in ASCII, the usual case, makes no string until it is shown): 10⁷ inputs
/// plan in seconds.
public struct BatchOutputs: Sendable {
    public let inputs: BatchInputs
    public let directory: String
    public let format: ImageFormat?
    /// 0: the plain name; 1: `x-png.jpg`; 2: `x-png-3fa2c1.jpg`; 3: `x-png-<the whole
    /// 64-bit hash>.jpg`, when 24 bits of it were not enough.
    private var levels: [UInt8]
    /// Each source extension (lower-case) and the output's, and whether they are one format's.
    private let extensions: [[UInt8]: (output: [UInt8], keeps: Bool)]
    private let otherExtension: [UInt8]

    public enum PlanError: Error, Equatable, Sendable {
        /// Outputs that could not be told apart (inputs whose paths hash alike): the run is
        /// refused rather than one written over another.
        case unresolved(inputs: [String])
        /// `cancelled` said so.
        case cancelled
    }

    /// Plans every output; `cancelled` is asked now and then (an interrupt ends a long plan).
    public init(
        _ inputs: BatchInputs, directory: String, format: ImageFormat?, cancelled: () -> Bool = { false }
    ) throws(PlanError) {
        self.inputs = inputs
        self.directory = directory
        self.format = format
        var table: [[UInt8]: (output: [UInt8], keeps: Bool)] = [:]
        for known in ImageFormat.all {
            for ext in known.fileExtensions {
                let output = format ?? known
                table[Array(ext.utf8)] = (Array(output.fileExtension.utf8), output.fileExtensions.contains(ext))
            }
        }
        extensions = table
        otherExtension = Array((format ?? .png).fileExtension.utf8)
        levels = [UInt8](repeating: 0, count: inputs.count)
        try plan(cancelled: cancelled)
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

    private func name(_ i: Int) -> Name {
        Name(inputs.relativePathBytes(i), path: inputs.pathBytes(i), extensions: extensions, other: otherExtension)
    }

    static let lastLevel = 3

    /// Each pass moves every input caught in a clash one step further from the plain name;
    /// decisions depend on the set of inputs only, never on their order. Inputs are grouped
    /// by a hash of their case-folded output (kept, and made again only for those moved),
    /// then by the output itself: a few bytes an input, not a dictionary of strings. A clash
    /// left after the last level refuses the run.
    private mutating func plan(cancelled: () -> Bool) throws(PlanError) {
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
            if i & 0xFFFF == 0, cancelled() { throw .cancelled }
        }
        var unresolved: [Int] = []
        for pass in 0...Self.lastLevel {
            if cancelled() { throw .cancelled }
            keyed.sort { ($0.hash, $0.index) < ($1.hash, $1.index) }
            var next = levels
            var changed = false
            var start = 0
            while start < keyed.count {
                var end = start + 1
                while end < keyed.count, keyed[end].hash == keyed[start].hash { end += 1 }
                if end - start == 1 && inputPaths.isEmpty {  // alone, and no input to meet: no clash
                    start = end
                    continue
                }
                // Inputs whose hashes meet are told apart by their names themselves: those
                // equal to the first, then those equal to the first of the rest, ... Each
                // name is made twice at most a pass, and nothing of it kept (a million
                // inputs of one name took seconds, and a dictionary of them gigabytes).
                var rest = Array(Int32(start)..<Int32(end))  // places in `keyed`
                while !rest.isEmpty {
                    let head = Int(keyed[Int(rest[0])].index)
                    let headName = name(head), key = headName.foldedKey(level: Int(levels[head]))
                    var members: [Int32] = [], others: [Int32] = [], nextHashes: [Int] = []
                    var keepers = 0, keeper = -1
                    for place in rest {
                        let i = Int(keyed[Int(place)].index)
                        let n = i == head ? headName : name(i)
                        guard i == head || n.foldedKey(level: Int(levels[i])) == key else {
                            others.append(place)
                            continue
                        }
                        members.append(place)
                        // Where it goes if it moves, made now, with its name in hand.
                        let level = min(Int(levels[i]) + 1, Self.lastLevel)
                        nextHashes.append(members.count > 1 || rest.count > 1 ? n.foldedHash(level: level) : 0)
                        if levels[i] == 0 && n.keepsExtension { (keepers, keeper) = (keepers + 1, i) }
                    }
                    rest = others
                    let clash =
                        members.count > 1
                        || {
                            let output = folder + headName.relative(level: Int(levels[head]))
                            guard isInput(FileNames.hash(bytes: output)) else { return false }
                            // Its own path is no clash (an input already where its output goes).
                            return BatchPlanning.standardized(bytes: output[...])
                                != BatchPlanning.standardized(bytes: inputs.pathBytes(head))
                        }()
                    guard clash else { continue }
                    for (m, place) in members.enumerated() {
                        let i = Int(keyed[Int(place)].index)
                        if pass == Self.lastLevel {
                            unresolved.append(i)
                            continue
                        }
                        // The one already in the output format keeps the plain name.
                        guard levels[i] < Self.lastLevel, !(members.count > 1 && keepers == 1 && keeper == i) else {
                            continue
                        }
                        next[i] = levels[i] + 1
                        keyed[Int(place)].hash =
                            members.count > 1 ? nextHashes[m] : name(i).foldedHash(level: Int(next[i]))
                        changed = true
                    }
                }
                start = end
            }
            levels = next
            if !changed { break }
        }
        if !unresolved.isEmpty { throw .unresolved(inputs: unresolved.prefix(4).map { inputs.path($0) }) }
    }

    /// An input's name, split: folder below the output folder, stem, extensions, as bytes.
    struct Name {
        let folder: ArraySlice<UInt8>, stem: ArraySlice<UInt8>
        let sourceExtension: [UInt8], outputExtension: [UInt8]
        let path: ArraySlice<UInt8>
        /// The input already has the output format's extension.
        let keepsExtension: Bool

        init(
            _ relativePath: ArraySlice<UInt8>, path: ArraySlice<UInt8>,
            extensions: [[UInt8]: (output: [UInt8], keeps: Bool)], other: [UInt8]
        ) {
            self.path = path
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
            // Only plain components: nothing lands outside the output folder. Most paths
            // have no empty, "." or ".." part: their folder is a slice as it is.
            var folder: ArraySlice<UInt8> = [], base: ArraySlice<UInt8> = []
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
                folder = lastSlash.map { relativePath[...$0] } ?? []
                base = last
            } else {
                var parts = relativePath.split(separator: slash)
                parts.removeAll { $0.elementsEqual([dot]) || $0.elementsEqual([dot, dot]) }
                folder = ArraySlice(parts.dropLast().flatMap { $0 + [slash] })
                base = parts.last ?? ArraySlice("image".utf8)
            }
            var stem = base, ext: [UInt8] = []
            if base.allSatisfy({ $0 < 0x80 }) {
                if let at = base.lastIndex(of: dot), at != base.startIndex {
                    stem = base[..<at]
                    ext = base[(at + 1)...].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
                }
            } else {
                // Characters, as a person reads the name (a "." a mark sits on is no dot).
                let text = FileNames.decode(base)
                if let at = text.lastIndex(of: "."), at != text.startIndex {
                    stem = ArraySlice(FileNames.encode(String(text[..<at])))
                    ext = FileNames.encode(String(text[text.index(after: at)...]).lowercased())
                }
            }
            if stem.isEmpty { stem = ArraySlice("image".utf8) }
            let known = extensions[ext]
            self.folder = folder
            self.stem = stem
            sourceExtension = ext
            outputExtension = known?.output ?? other
            keepsExtension = known?.keeps ?? false
        }

        /// The output's path below the folder. A last part over 255 bytes (NAME_MAX) has its
        /// stem cut, at a character's start, so that a suffix never makes a name no file
        /// system takes.
        func relative(level: Int) -> [UInt8] {
            var suffix: [UInt8] = []
            let tag: [UInt8] = sourceExtension.isEmpty ? [] : [UInt8(ascii: "-")] + sourceExtension
            switch level {
            case 0: break
            case 1: suffix = tag.isEmpty ? [UInt8(ascii: "-")] + hex(6) : tag
            case 2: suffix = tag + [UInt8(ascii: "-")] + hex(6)
            default: suffix = tag + [UInt8(ascii: "-")] + hex(16)
            }
            suffix += [UInt8(ascii: ".")] + outputExtension
            var stem = self.stem
            if stem.count + suffix.count > 255 { stem = Self.cut(stem, to: max(1, 255 - suffix.count)) }
            var out: [UInt8] = []
            out.reserveCapacity(folder.count + stem.count + suffix.count)
            out += folder
            out += stem
            out += suffix
            return out
        }

        /// At most `length` bytes of `stem`, ending where a character ends.
        static func cut(_ stem: ArraySlice<UInt8>, to length: Int) -> ArraySlice<UInt8> {
            var kept = stem.prefix(length)
            guard kept.count < stem.count else { return kept }
            // The last character's lead byte; dropped with its bytes when they do not all fit.
            var lead = kept.endIndex
            while lead > kept.startIndex, kept[lead - 1] & 0xC0 == 0x80 { lead -= 1 }
            if lead > kept.startIndex {
                let byte = kept[lead - 1]
                let size = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if lead - 1 + size > kept.endIndex { kept = kept[..<(lead - 1)] }
            }
            return kept.isEmpty ? ArraySlice("image".utf8) : kept
        }

        /// The last `digits` hex digits of the FNV-1a hash of the input's path.
        private func hex(_ digits: Int) -> [UInt8] {
            let hash = FileNames.hash(bytes: path), alphabet = Array("0123456789abcdef".utf8)
            return (0..<digits).reversed().map { alphabet[Int((hash >> (4 * UInt64($0))) & 15)] }
        }

        /// The output's path below the folder, case-folded as `String.lowercased` folds it:
        /// bytes for a name in ASCII, else the folded string's (compared as strings).
        enum Key: Equatable {
            case ascii([UInt8])
            case text(String)

            /// Names are equal as strings are (canonically): bytes only when both are ASCII.
            static func == (a: Key, b: Key) -> Bool {
                switch (a, b) {
                case let (.ascii(x), .ascii(y)): return x == y
                default: return a.string == b.string
                }
            }

            var string: String {
                switch self {
                case let .ascii(bytes): return String(decoding: bytes, as: UTF8.self)
                case let .text(text): return text
                }
            }
        }

        func foldedKey(level: Int) -> Key {
            let bytes = relative(level: level)
            if bytes.allSatisfy({ $0 < 0x80 }) {
                return .ascii(bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
            }
            let folded = FileNames.decode(bytes).lowercased()
            if folded.utf8.allSatisfy({ $0 < 0x80 }) { return .ascii(Array(folded.utf8)) }
            return .text(folded)
        }

        /// A hash of `foldedKey`, equal for equal keys (Swift's own string hash: canonically
        /// equal names are equal strings).
        func foldedHash(level: Int) -> Int {
            switch foldedKey(level: level) {
            case let .ascii(bytes): return String(decoding: bytes, as: UTF8.self).hashValue
            case let .text(text): return text.hashValue
            }
        }
    }
}
