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

    /// An element: its name, its text (the characters directly inside it) and its children.
    final class Node {
        let name: String
        var text = ""
        var children: [Node] = []
        init(name: String) { self.name = name }

        func child(_ name: String) throws(FormatError) -> Node {
            guard let node = children.first(where: { $0.name == name }) else {
                throw FormatError(description: "cascade: no <\(name)> in <\(self.name)>")
            }
            return node
        }

        /// The whitespace-separated words of the text.
        var words: [Substring] {
            text.utf8.split(whereSeparator: { $0 == 32 || $0 == 10 || $0 == 9 || $0 == 13 }).map {
                Substring(String(decoding: $0, as: UTF8.self))
            }
        }

        func int(_ name: String) throws(FormatError) -> Int {
            guard let value = try child(name).words.first.flatMap({ Int($0) }) else {
                throw FormatError(description: "cascade: <\(name)> is not a number")
            }
            return value
        }
    }

    /// The root element of `text`.
    static func parse(_ text: String) throws(FormatError) -> Node {
        let bytes = Array(text.utf8)
        do {
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
            func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
            while i < n {
                if bytes[i] != UInt8(ascii: "<") {
                    let start = i
                    while i < n, bytes[i] != UInt8(ascii: "<") { i += 1 }
                    open[open.count - 1].text += string(start..<i)
                } else if starts("<!--") {
                    try skip(past: "-->")
                } else if starts("<?") {
                    try skip(past: "?>")
                } else if starts("</") {
                    let start = i + 2
                    try skip(past: ">")
                    let name = string(start..<i - 1)
                    guard open.count > 1, open[open.count - 1].name == name else {
                        throw FormatError(description: "cascade: unexpected </\(name)>")
                    }
                    open.removeLast()
                } else {
                    let start = i + 1
                    try skip(past: ">")
                    var tag = string(start..<i - 1)
                    let empty = tag.hasSuffix("/")
                    if empty { tag.removeLast() }
                    let node = Node(name: String(tag.split(separator: " ").first ?? ""))
                    open[open.count - 1].children.append(node)
                    if !empty { open.append(node) }
                }
            }
            guard open.count == 1 else {
                throw FormatError(description: "cascade: unclosed <\(open[open.count - 1].name)>")
            }
            return root
        }
    }

    /// The cascade in `text`.
    static func cascade(_ text: String) throws(FormatError) -> Cascade {
        let root = try parse(text)
        guard let storage = root.children.first, let node = storage.children.first else {
            throw FormatError(description: "cascade: empty file")
        }
        guard try node.child("stageType").words.first == "BOOST" else {
            throw FormatError(description: "cascade: only boosted cascades are read")
        }
        let type = try node.child("featureType").words.first
        let isLBP = type == "LBP"
        guard isLBP || type == "HAAR" else { throw FormatError(description: "cascade: unknown feature type") }
        let width = try node.int("width"), height = try node.int("height")
        guard (1...64).contains(width), (1...64).contains(height) else {
            throw FormatError(description: "cascade: window \(width)x\(height) out of range")
        }
        // OpenCV reads numbers as double and narrows them to float.
        func real(_ word: Substring) throws(FormatError) -> Float {
            guard let value = Double(word) else { throw FormatError(description: "cascade: '\(word)' is not a number") }
            return Float(value)
        }
        func integer(_ word: Substring) throws(FormatError) -> Int {
            guard let value = Int(word) else { throw FormatError(description: "cascade: '\(word)' is not a number") }
            return value
        }

        var stages = Cascade.Stages()
        for stageNode in try node.child("stages").children {
            let threshold = try real(stageNode.child("stageThreshold").words.first ?? "") - 1e-5
            for tree in try stageNode.child("weakClassifiers").children {
                let nodes = try tree.child("internalNodes").words
                let leaves = try tree.child("leafValues").words
                // A stump: left, right, feature, then 8 category words (LBP) or a threshold.
                guard nodes.count == (isLBP ? 11 : 4), leaves.count == 2 else {
                    throw FormatError(description: "cascade: only depth-1 trees (stumps) are read")
                }
                let feature = try integer(nodes[2])
                if isLBP {
                    for word in nodes[3...] {
                        stages.subsets.append(UInt32(bitPattern: Int32(truncatingIfNeeded: try integer(word))))
                    }
                }
                stages.features.append(Int32(feature))
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
            if !isLBP, try feature.int("tilted") != 0 {
                throw FormatError(description: "cascade: tilted Haar features are not read")
            }
            for box in boxes {
                let w = box.words
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
