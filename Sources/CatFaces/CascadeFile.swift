import CatSupport

/// Reads a boosted cascade in OpenCV's XML format (the `opencv_traincascade` layout:
/// `cascade` with `stageType` BOOST, `featureType` HAAR or LBP, `stages` of depth-1 weak
/// classifiers, `features`). Only the cascades built into catctl are read (`Cascade.lbp`,
/// `Cascade.haar`), so this is a reader for that one format, not a general XML parser:
/// elements, text, comments and the declaration.
struct CascadeFile {
    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    /// An element: its name, the runs of text directly inside it that are not all
    /// whitespace (as byte ranges of the file), and its children.
    final class Node {
        let name: String
        var text: [Range<Int>] = []
        var children: [Node] = []
        init(name: String) { self.name = name }

        func child(_ name: String) throws(FormatError) -> Node {
            guard let node = children.first(where: { $0.name == name }) else {
                throw FormatError(description: "cascade: no <\(name)> in <\(self.name)>")
            }
            return node
        }
    }

    /// The file's bytes, with a NUL after them (so `strtod` stops inside them). Words and
    /// numbers are read straight from them, with no string made a word: the Haar cascade
    /// has some 30 000 numbers, and reading it is on the way to every detection's first window.
    let bytes: UnsafeBufferPointer<UInt8>

    /// `bytes` must be followed by a NUL, as the built-in files' C arrays are.
    init(bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.baseAddress.map { $0[bytes.count] == 0 } ?? false, "cascade text without its NUL")
        self.bytes = bytes
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 10 || b == 9 || b == 13 }

    /// The whitespace-separated words of a node's text.
    func words(_ node: Node) -> [Range<Int>] {
        var words: [Range<Int>] = []
        for run in node.text {
            var i = run.lowerBound
            while i < run.upperBound {
                while i < run.upperBound, Self.isSpace(bytes[i]) { i += 1 }
                let start = i
                while i < run.upperBound, !Self.isSpace(bytes[i]) { i += 1 }
                if start < i { words.append(start..<i) }
            }
        }
        return words
    }

    func word(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// A decimal integer, the whole word.
    func integer(_ range: Range<Int>) throws(FormatError) -> Int {
        var i = range.lowerBound
        let negative = i < range.upperBound && bytes[i] == UInt8(ascii: "-")
        if negative || (i < range.upperBound && bytes[i] == UInt8(ascii: "+")) { i += 1 }
        // At most 18 digits: no overflow.
        guard i < range.upperBound, range.upperBound - i <= 18 else {
            throw FormatError(description: "cascade: '\(word(range))' is not a number")
        }
        var value = 0
        while i < range.upperBound {
            let digit = Int(bytes[i]) - 48
            guard (0...9).contains(digit) else {
                throw FormatError(description: "cascade: '\(word(range))' is not a number")
            }
            value = value * 10 + digit
            i += 1
        }
        return negative ? -value : value
    }

    /// A real number, the whole word: read as a double (correctly rounded, as OpenCV's
    /// reader does) and narrowed to float. `strtod` first; where it stops short (a locale
    /// whose decimal point is not "."), Swift's own reading.
    func real(_ range: Range<Int>) throws(FormatError) -> Float {
        let start = UnsafeRawPointer(bytes.baseAddress! + range.lowerBound).assumingMemoryBound(to: CChar.self)
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(start, &end)
        if !range.isEmpty, let end, end == UnsafeMutablePointer(mutating: start + range.count) {
            return Float(value)
        }
        guard let value = Double(word(range)) else {
            throw FormatError(description: "cascade: '\(word(range))' is not a number")
        }
        return Float(value)
    }

    /// The root element of the file.
    func parse() throws(FormatError) -> Node {
        let root = Node(name: "")
        var open: [Node] = [root]
        var i = 0
        let n = bytes.count
        func starts(_ s: StaticString) -> Bool {
            let count = s.utf8CodeUnitCount
            guard i + count <= n else { return false }
            let p = s.utf8Start
            for k in 0..<count where bytes[i + k] != p[k] { return false }
            return true
        }
        func skip(past s: StaticString) throws(FormatError) {
            while i < n {
                if starts(s) {
                    i += s.utf8CodeUnitCount
                    return
                }
                i += 1
            }
            throw FormatError(description: "cascade: unterminated markup")
        }
        while i < n {
            if bytes[i] != UInt8(ascii: "<") {
                let start = i
                var blank = true
                while i < n, bytes[i] != UInt8(ascii: "<") {
                    if blank, !Self.isSpace(bytes[i]) { blank = false }
                    i += 1
                }
                if !blank { open[open.count - 1].text.append(start..<i) }
            } else if starts("<!--") {
                try skip(past: "-->")
            } else if starts("<?") {
                try skip(past: "?>")
            } else if starts("</") {
                let start = i + 2
                try skip(past: ">")
                let name = word(start..<i - 1)
                guard open.count > 1, open[open.count - 1].name == name else {
                    throw FormatError(description: "cascade: unexpected </\(name)>")
                }
                open.removeLast()
            } else {
                let start = i + 1
                try skip(past: ">")
                var end = i - 1
                let empty = end > start && bytes[end - 1] == UInt8(ascii: "/")
                if empty { end -= 1 }
                var nameEnd = start
                while nameEnd < end, !Self.isSpace(bytes[nameEnd]) { nameEnd += 1 }
                let node = Node(name: word(start..<nameEnd))
                open[open.count - 1].children.append(node)
                if !empty { open.append(node) }
            }
        }
        guard open.count == 1 else {
            throw FormatError(description: "cascade: unclosed <\(open[open.count - 1].name)>")
        }
        return root
    }

    /// The cascade in `text`.
    static func cascade(_ text: String) throws(FormatError) -> Cascade {
        let bytes = Array(text.utf8) + [0]
        let result = bytes.withUnsafeBufferPointer { all in
            Result { () throws(FormatError) -> Cascade in
                try CascadeFile(bytes: UnsafeBufferPointer(rebasing: all.dropLast())).cascade()
            }
        }
        return try result.get()
    }

    /// The cascade in the file.
    func cascade() throws(FormatError) -> Cascade {
        let root = try parse()
        guard let storage = root.children.first, let node = storage.children.first else {
            throw FormatError(description: "cascade: empty file")
        }
        guard try words(node.child("stageType")).first.map(word) == "BOOST" else {
            throw FormatError(description: "cascade: only boosted cascades are read")
        }
        let type = try words(node.child("featureType")).first.map(word)
        let isLBP = type == "LBP"
        guard isLBP || type == "HAAR" else { throw FormatError(description: "cascade: unknown feature type") }
        func int(_ node: Node, _ name: String) throws(FormatError) -> Int {
            guard let first = try words(node.child(name)).first else {
                throw FormatError(description: "cascade: <\(name)> is not a number")
            }
            return try integer(first)
        }
        let width = try int(node, "width"), height = try int(node, "height")
        guard (1...64).contains(width), (1...64).contains(height) else {
            throw FormatError(description: "cascade: window \(width)x\(height) out of range")
        }
        var stages = Cascade.Stages()
        for stageNode in try node.child("stages").children {
            guard let thresholdWord = try words(stageNode.child("stageThreshold")).first else {
                throw FormatError(description: "cascade: a stage has no threshold")
            }
            let threshold = try real(thresholdWord) - 1e-5
            for tree in try stageNode.child("weakClassifiers").children {
                let nodes = try words(tree.child("internalNodes"))
                let leaves = try words(tree.child("leafValues"))
                // A stump: left, right, feature, then 8 category words (LBP) or a threshold.
                guard nodes.count == (isLBP ? 11 : 4), leaves.count == 2 else {
                    throw FormatError(description: "cascade: only depth-1 trees (stumps) are read")
                }
                guard let feature = Int32(exactly: try integer(nodes[2])) else {
                    throw FormatError(description: "cascade: a stump names a missing feature")
                }
                if isLBP {
                    for word in nodes[3...] {
                        stages.subsets.append(UInt32(bitPattern: Int32(truncatingIfNeeded: try integer(word))))
                    }
                }
                stages.features.append(feature)
                stages.thresholds.append(isLBP ? 0 : try real(nodes[3]))
                stages.left.append(try real(leaves[0]))
                stages.right.append(try real(leaves[1]))
            }
            stages.ends.append(Int32(stages.features.count))
            stages.stageThresholds.append(threshold)
        }
        var rects: [[(x: Int, y: Int, width: Int, height: Int, weight: Float)]] = []
        for feature in try node.child("features").children {
            var parts: [(x: Int, y: Int, width: Int, height: Int, weight: Float)] = []
            let boxes = isLBP ? [try feature.child("rect")] : try feature.child("rects").children
            if !isLBP, try int(feature, "tilted") != 0 {
                throw FormatError(description: "cascade: tilted Haar features are not read")
            }
            for box in boxes {
                let w = words(box)
                guard w.count == (isLBP ? 4 : 5) else {
                    throw FormatError(description: "cascade: bad feature rectangle")
                }
                let r = (
                    x: try integer(w[0]), y: try integer(w[1]), width: try integer(w[2]), height: try integer(w[3]),
                    weight: isLBP ? 1 : try real(w[4])
                )
                // The LBP feature is 3 x 3 blocks of the rectangle's size.
                let span = isLBP ? 3 : 1
                guard r.x >= 0, r.y >= 0, r.width >= 0, r.height >= 0, r.x + span * r.width <= width,
                    r.y + span * r.height <= height
                else { throw FormatError(description: "cascade: feature outside the window") }
                parts.append(r)
            }
            guard (1...3).contains(parts.count) else { throw FormatError(description: "cascade: bad feature") }
            rects.append(parts)
        }
        guard !stages.ends.isEmpty, stages.features.allSatisfy({ $0 >= 0 && $0 < rects.count }) else {
            throw FormatError(description: "cascade: a stump names a missing feature")
        }
        return Cascade(kind: isLBP ? .lbp : .haar, width: width, height: height, stages: stages, features: rects)
    }
}
