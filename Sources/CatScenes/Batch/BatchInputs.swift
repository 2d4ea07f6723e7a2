import CatImageIO
import CatSupport

/// One input of a batch as it is found, and where its output goes below the output folder.
public struct BatchInput: Sendable, Equatable {
    public let path: String
    /// The output's path below the output folder, extension aside: the input's base name,
    /// or (from a folder walked with --recursive, a listed prefix) its path below that folder.
    public let relativePath: String

    public init(path: String, relativePath: String? = nil) {
        self.path = path
        self.relativePath = relativePath ?? (FileNames.components(of: path).last ?? path)
    }
}

/// A batch's inputs, in the order found, each path once, held in one buffer of bytes and
/// three small arrays (about 20 bytes an input besides its name): a manifest of millions of
/// lines is planned in bounded memory. At most `limit` inputs are taken, however they come
/// (files, folders walked, objects listed, lines of standard input and of the manifest);
/// one more is `BatchInputs.Overflow`. An input whose name no file system can hold (a NUL
/// byte) or that is too long to be a path is kept, refused, so the run reports it as a
/// failed file of its own and never plans an output for it.
public struct BatchInputs: Sendable {
    /// Inputs at most, unless `--max-inputs` says otherwise.
    public static let defaultLimit = 1_000_000
    /// The most `--max-inputs` may allow (about a gigabyte of planning).
    public static let maxLimit = 10_000_000
    /// A longer name (a manifest line, a listed key with its prefix) is refused: Linux's PATH_MAX.
    public static let maxNameBytes = 4096

    /// More inputs than the limit allows.
    public struct Overflow: Error, Equatable, Sendable {
        public let limit: Int
    }

    public let limit: Int
    /// Every path's bytes (`FileNames.encode`), one after another.
    private var bytes: [UInt8] = []
    /// Where each path ends in `bytes`.
    private var ends: [UInt32] = []
    /// Where each input's relative path starts in its bytes; `lastComponent`: its base name.
    private var relativeStarts: [UInt32] = []
    private static let lastComponent = UInt32.max
    /// Why an input was refused before planning, by index (few: only those refused).
    public private(set) var refusals: [Int: String] = [:]
    /// Open addressing over the paths' FNV-1a hashes: index + 1 of an input, 0 when empty.
    private var slots: [Int32] = []
    /// Paths given again (an identical manifest line, a file named twice): taken once.
    public private(set) var duplicates = 0
    /// Notes for the user (keys listed outside their prefix), at most `maxNotes`.
    public private(set) var notes: [String] = []
    public private(set) var notesLeftOut = 0
    static let maxNotes = 20

    public init(limit: Int = defaultLimit) {
        self.limit = max(1, min(limit, Self.maxLimit))
    }

    /// Inputs taken so far, refused ones included.
    public var count: Int { ends.count }

    /// The bytes of input `i`'s path.
    public func pathBytes(_ i: Int) -> ArraySlice<UInt8> {
        bytes[(i == 0 ? 0 : Int(ends[i - 1]))..<Int(ends[i])]
    }

    public func path(_ i: Int) -> String { FileNames.decode(pathBytes(i)) }

    /// Input `i`'s path below the output folder (its base name for a file named by itself).
    public func relativePath(_ i: Int) -> String { FileNames.decode(relativePathBytes(i)) }

    /// The bytes of input `i`'s path below the output folder (see `relativePath`).
    func relativePathBytes(_ i: Int) -> ArraySlice<UInt8> {
        let start = relativeStarts[i]
        let path = pathBytes(i)
        if start == Self.lastComponent {
            // The last part that is not empty ("a/b/" is b).
            var end = path.endIndex
            while end > path.startIndex, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
            let slash = path[..<end].lastIndex(of: UInt8(ascii: "/"))
            let part = path[(slash.map { $0 + 1 } ?? path.startIndex)..<end]
            return part.isEmpty ? path : part
        }
        return path.dropFirst(Int(start))
    }

    public func input(_ i: Int) -> BatchInput { BatchInput(path: path(i), relativePath: relativePath(i)) }

    public func refusal(_ i: Int) -> String? { refusals.isEmpty ? nil : refusals[i] }

    /// Adds `path` (its relative path: the base name, or the part after `relativeFrom`
    /// bytes); returns its index, the earlier one when the same path was taken already.
    @discardableResult
    public mutating func add(_ path: String, relativeFrom: Int? = nil) throws(Overflow) -> Int {
        try add(bytes: FileNames.encode(path), relativeFrom: relativeFrom)
    }

    @discardableResult
    public mutating func add(_ input: BatchInput) throws(Overflow) -> Int {
        let path = FileNames.encode(input.path), relative = FileNames.encode(input.relativePath)
        let plain = path.split(separator: UInt8(ascii: "/")).last.map { $0.elementsEqual(relative) } ?? relative.isEmpty
        if plain { return try add(bytes: path, relativeFrom: nil) }
        guard path.count >= relative.count, path.suffix(relative.count).elementsEqual(relative) else {
            // A relative path that is not the path's end (tests name such inputs): kept as the whole path.
            return try add(bytes: path, relativeFrom: nil)
        }
        return try add(bytes: path, relativeFrom: path.count - relative.count)
    }

    /// Adds a path given as bytes; a NUL in it (every C call would cut the name there, and
    /// two inputs would write one file) or a name over `maxNameBytes` is kept as refused.
    @discardableResult
    public mutating func add<C: Collection<UInt8>>(bytes path: C, relativeFrom: Int? = nil) throws(Overflow) -> Int {
        let copy = Array(path)
        var result: Result<Int, Overflow> = .success(0)
        copy.withUnsafeBytes { raw in
            result = Result { () throws(Overflow) in try add(raw: raw, relativeFrom: relativeFrom) }
        }
        return try result.get()
    }

    /// `add(bytes:)` on raw bytes: what a manifest's millions of lines go through, with no
    /// copy and no generic code (a debug build reads 10⁷ lines in seconds).
    mutating func add(raw path: UnsafeRawBufferPointer, relativeFrom: Int? = nil) throws(Overflow) -> Int {
        let hash = FileNames.hash(raw: path)
        if slots.count < 2 * (count + 1) { growSlots() }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let other = Int(slots[slot]) - 1
            if same(other, path) {
                duplicates += 1
                return other
            }
            slot = (slot + 1) & mask
        }
        guard count < limit else { throw Overflow(limit: limit) }
        guard bytes.count + path.count <= Int(UInt32.max - 1) else { throw Overflow(limit: count) }
        let index = count
        var refusal: String?
        if path.count > 0, memchr(path.baseAddress!, 0, path.count) != nil {
            refusal = "its name holds a NUL byte, which no file name can (every system call would stop there)"
        } else if path.count > Self.maxNameBytes {
            refusal = "its name is over \(Self.maxNameBytes) bytes"
        }
        bytes.append(contentsOf: path)
        ends.append(UInt32(bytes.count))
        relativeStarts.append(relativeFrom.map { UInt32(clamping: min($0, path.count)) } ?? Self.lastComponent)
        slots[slot] = Int32(index + 1)
        if let refusal { refusals[index] = refusal }
        return index
    }

    /// Whether input `i`'s path is these bytes.
    private func same(_ i: Int, _ path: UnsafeRawBufferPointer) -> Bool {
        let start = i == 0 ? 0 : Int(ends[i - 1]), length = Int(ends[i]) - start
        guard length == path.count else { return false }
        if length == 0 { return true }
        return bytes.withUnsafeBytes { memcmp($0.baseAddress! + start, path.baseAddress!, length) == 0 }
    }

    private mutating func growSlots() {
        let size = max(64, slots.count * 2)
        slots = [Int32](repeating: 0, count: size)
        let mask = size - 1
        for i in 0..<count {
            let start = i == 0 ? 0 : Int(ends[i - 1])
            let hash = bytes.withUnsafeBytes {
                FileNames.hash(raw: UnsafeRawBufferPointer(rebasing: $0[start..<Int(ends[i])]))
            }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(i + 1)
        }
    }

    /// A note for the user, kept when there are fewer than `maxNotes`, else counted.
    public mutating func note(_ text: String) {
        if notes.count < Self.maxNotes { notes.append(text) } else { notesLeftOut += 1 }
    }

    /// Memory held for the inputs, in bytes (what the bound on a manifest's lines is about).
    public var bytesHeld: Int {
        bytes.capacity + 4 * ends.capacity + 4 * relativeStarts.capacity + 4 * slots.capacity
    }

    // MARK: Lines

    /// Splits a stream of bytes into paths, one a line, as standard input and manifests
    /// hold them: blanks (space, tab) around a path, a CR before the LF, and empty lines
    /// are left out; bytes need not be UTF-8. A line over `maxNameBytes` is kept short
    /// (its start) and refused. Feed it chunks, then `finish`.
    public struct Lines {
        private var line: [UInt8] = []

        public init() {}

        public mutating func feed(_ chunk: UnsafeRawBufferPointer, into inputs: inout BatchInputs) throws(Overflow) {
            guard let base = chunk.baseAddress else { return }
            var start = 0
            while start < chunk.count {
                let found = memchr(base + start, 0x0A, chunk.count - start)
                let end = found.map { UnsafeRawPointer($0) - base } ?? chunk.count
                if line.isEmpty, found != nil {
                    try add(UnsafeRawBufferPointer(start: base + start, count: end - start), into: &inputs)  // no copy
                } else {
                    take(UnsafeRawBufferPointer(start: base + start, count: end - start))
                    if found != nil { try flush(into: &inputs) }
                }
                guard found != nil else { return }
                start = end + 1
            }
        }

        public mutating func finish(into inputs: inout BatchInputs) throws(Overflow) {
            try flush(into: &inputs)
        }

        /// A line's bytes, up to a little over `maxNameBytes` (enough to refuse it as too long).
        private mutating func take(_ part: UnsafeRawBufferPointer) {
            let room = max(0, BatchInputs.maxNameBytes + 2 - line.count)
            line.append(contentsOf: part.prefix(room))
        }

        private mutating func flush(into inputs: inout BatchInputs) throws(Overflow) {
            defer { line.removeAll(keepingCapacity: true) }
            var result: Result<Void, Overflow> = .success(())
            line.withUnsafeBytes { raw in result = Result { () throws(Overflow) in try add(raw, into: &inputs) } }
            try result.get()
        }

        /// One line, blanks around it dropped; nothing for an empty one. A line over the
        /// name limit is kept to a little over it (it is refused as too long).
        private func add(_ raw: UnsafeRawBufferPointer, into inputs: inout BatchInputs) throws(Overflow) {
            var start = 0, end = min(raw.count, BatchInputs.maxNameBytes + 2)
            while start < end, raw[start] == 0x20 || raw[start] == 0x09 { start += 1 }
            while end > start, raw[end - 1] == 0x20 || raw[end - 1] == 0x09 || raw[end - 1] == 0x0D { end -= 1 }
            guard start < end else { return }
            _ = try inputs.add(raw: UnsafeRawBufferPointer(rebasing: raw[start..<end]))
        }
    }

    /// The paths in `data`, one a line (see `Lines`).
    public mutating func addLines(_ data: [UInt8]) throws(Overflow) {
        var lines = Lines()
        var result: Result<Void, Overflow> = .success(())
        data.withUnsafeBytes { raw in result = Result { () throws(Overflow) in try lines.feed(raw, into: &self) } }
        try result.get()
        try lines.finish(into: &self)
    }

    /// The paths on a descriptor, one a line, read as they come (never more than
    /// `maxBytes` in all: `InputFile`'s limit), without holding the whole text.
    public mutating func addLines(reading fd: Int32, name: String, maxBytes: Int = InputFile.defaultMaxBytes)
        throws(LinesError)
    {
        var lines = Lines()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            if Task.isCancelled { throw .cancelled }  // an interrupt while a long list is read
            let n = chunk.withUnsafeMutableBytes { SystemCalls.readWaiting(fd, into: $0) }
            if n == 0 { break }
            if n < 0 { throw .unreadable(ImageIOError.inputUnreadable(path: name, reason: errnoReason(Int32(-n)))) }
            total += n
            guard total <= maxBytes else {
                throw .unreadable(
                    ImageIOError.inputUnreadable(path: name, reason: "larger than \(maxBytes / 1_048_576) MiB"))
            }
            var result: Result<Void, Overflow> = .success(())
            chunk.withUnsafeBytes { raw in
                result = Result { () throws(Overflow) in
                    try lines.feed(UnsafeRawBufferPointer(rebasing: raw[0..<n]), into: &self)
                }
            }
            if case let .failure(overflow) = result { throw .overflow(overflow) }
        }
        do { try lines.finish(into: &self) } catch { throw .overflow(error) }
    }

    public enum LinesError: Error {
        case unreadable(ImageIOError)
        case overflow(Overflow)
        case cancelled
    }
}
