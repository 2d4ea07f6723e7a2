internal import CCatModels
import CatSupport
import Dispatch

/// A darknet network (a `.cfg` and its `.weights`), read into the layers catctl's kernels
/// run: what the cat detector (`CatDetector`) and the second look's classifier
/// (`CatClassifier`) are. Only the layers those two use are known: `convolutional` (full, 1x1
/// or depthwise, batch norm folded into the weights, leaky, ReLU6 or linear), `shortcut`,
/// `route`, `maxpool` at stride 1, `upsample`, `avgpool` (global), `dropout` (nothing at
/// inference), and the outputs, `yolo` and `softmax` (over the channels of a 1 x 1 map).
/// The mask's network (`CatSegmenter`, U^2-Netp) adds darknet's `dilation` (full
/// convolutions), ReLU, the 2 x 2 `maxpool` at stride 2 and `[logistic]` (an output), and
/// catctl's `[resize] like=N` (bilinear, to layer N's size).
/// Anything else, or a shape, count or size that does not add up, is an error before any
/// work: the weights must be exactly as many as the layers take.
///
/// catctl's own keys, for weights smaller than darknet's float32 (the classifier's): a
/// convolution's `weights=int8` (a float32 scale an output, then int8 weights, each int8 x
/// its output's scale) or `weights=half` (IEEE float16), both after its float32 biases; and
/// `padding_after`, the zeros below and right of the input when they are not as many as
/// darknet's `padding` above and left (TensorFlow's "same" padding at step 2).
///
/// Written here rather than loaded from libopencv-dnn: OpenCV has no C interface to load
/// at run time (its C++ one would tie catctl to one libstdc++ build), and its dnn module
/// with its dependencies is larger than catctl itself. docs/detection.md has the figures.
package struct Darknet: Sendable {
    struct Convolution: Sendable {
        let inputs: Int, outputs: Int, size: Int, step: Int
        /// The taps' spacing (darknet's `dilation`; full convolutions only): the kernel spans
        /// `extent` pixels.
        let dilation: Int
        var extent: Int { dilation * (size - 1) + 1 }
        /// The zeros above and left of the input (`pad`), and below and right (`padAfter`).
        let pad: Int, padAfter: Int
        /// 1 (full) or `inputs` == `outputs` (depthwise).
        let groups: Int
        let activation: Activation
        /// [output][input / groups][ky][kx], batch norm folded in.
        let weights: Weights
        let bias: Floats
    }

    struct Yolo: Sendable {
        /// The anchors (width, height) of this layer's boxes, in the input's pixels.
        let anchors: [(width: Double, height: Double)]
        let classes: Int
    }

    /// What follows a convolution's bias (the kernels' code for it).
    enum Activation: Int32, Sendable {
        case linear = 0
        case leaky = 1
        case relu6 = 2
        case relu = 3
    }

    enum Layer: Sendable {
        case convolution(Convolution)
        /// Adds the output of layer `from` (an index).
        case shortcut(from: Int)
        /// The outputs of these layers, their channels one after the other.
        case route([Int])
        /// The largest value in each size x size window: `step` 1 (size odd, the window
        /// around each pixel) or 2 (size 2, darknet's and PyTorch's ceil mode: a last odd row
        /// or column is a window of its own).
        case maxpool(size: Int, step: Int)
        case upsample
        /// A bilinear resize (half-pixel centres, as PyTorch's `align_corners=False`) of the
        /// map before to the width and height of layer `like`'s (catctl's `[resize]`).
        case resize(like: Int)
        /// Each channel's mean: a 1 x 1 map.
        case average
        /// The previous layer's output, unchanged.
        case dropout
        case yolo(Yolo)
        /// The softmax of a 1 x 1 map's channels: an output.
        case softmax
        /// The logistic function of each value: an output.
        case logistic

        /// What `run` gives.
        var isOutput: Bool {
            switch self {
            case .yolo, .softmax, .logistic: true
            default: false
            }
        }
    }

    package struct Shape: Equatable, Sendable {
        package var channels: Int, width: Int, height: Int
        package var pixels: Int { width * height }

        package init(channels: Int, width: Int, height: Int) {
            (self.channels, self.width, self.height) = (channels, width, height)
        }
    }

    /// The input: `channels` planes of `width` x `height`.
    package let input: Shape
    let layers: [Layer]
    /// Each layer's output.
    package let shapes: [Shape]
    /// The largest side `run` takes, checked at reading (`checkCost`).
    package let largestRun: Int
    /// Its XNNPACK operators, made on first use (`run(_:threads:runtime:)`).
    let xnnpack = XNNPACKNetworks()

    /// Its one output is its last layer, a softmax: a classifier's shape (`CatClassifier`).
    package var endsInItsOneSoftmax: Bool {
        guard layers.filter(\.isOutput).count == 1, case .softmax = layers.last else { return false }
        return true
    }

    /// Its one output is its last layer, a logistic: a mask's shape (`CatSegmenter`).
    package var endsInItsOneLogistic: Bool {
        guard layers.filter(\.isOutput).count == 1, case .logistic = layers.last else { return false }
        return true
    }

    package struct ReadError: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// Limits no sane small network reaches; checked before anything is allocated.
    static let maxSide = 2048, maxChannels = 4096, maxLayers = 1024, maxWeights = 64 << 20

    /// Reads a network to be run on inputs at most `largestRun` on a side, its cost checked
    /// at that size against `maxWork` operations (`checkCost`).
    package init(cfg: [UInt8], weights: [UInt8], largestRun: Int = maxRunSide, maxWork: Int = maxOperations)
        throws(ReadError)
    {
        let sections = try Self.sections(cfg)
        guard let net = sections.first, net.name == "net", sections.count - 1 <= Self.maxLayers else {
            throw ReadError(description: "the cfg does not start with [net], or has too many layers")
        }
        input = Shape(
            channels: try net.int("channels", nil, 1...4), width: try net.int("width", nil, 1...Self.maxSide),
            height: try net.int("height", nil, 1...Self.maxSide))
        var reader = WeightReader(bytes: weights)
        try reader.header()
        let layers = try Self.layers(sections.dropFirst(), input: input, weights: &reader)
        guard reader.atEnd else {
            throw ReadError(description: "the weights file holds more than the layers take")
        }
        guard layers.contains(where: \.isOutput) else {
            throw ReadError(description: "the network has no yolo or softmax layer")
        }
        self.layers = layers
        guard let shapes = Self.shapes(of: layers, for: input) else {
            throw ReadError(description: "the layers' sizes do not fit the input's")
        }
        self.shapes = shapes
        self.largestRun = min(largestRun, Self.maxRunSide)
        try Self.checkCost(layers, input: input, side: self.largestRun, maxWork: min(maxWork, Self.largestWork))
    }

    /// The network installed in `folder` (`BundledResources`: `Resources/` in a source tree,
    /// `share/catctl/` once installed): its `cfg` (at most 1 MiB) and `weights` files, each
    /// a regular file read whole, or why they cannot be read.
    static func installed(
        _ folder: String, cfg: String, weights: String, maxWeightBytes: Int, largestRun: Int = maxRunSide,
        maxWork: Int = maxOperations
    ) throws(ReadError) -> Darknet {
        guard let dir = BundledResources.directory(folder) else {
            throw ReadError(description: "share/catctl/\(folder) is missing")
        }
        func read(_ name: String, _ limit: Int) throws(ReadError) -> [UInt8] {
            switch FileSystem.readRegularFile(dir + "/" + name, maxBytes: limit) {
            case let .success(bytes): return bytes
            case let .failure(failure): throw ReadError(description: failure.description)
            }
        }
        return try Darknet(
            cfg: try read(cfg, 1 << 20), weights: try read(weights, maxWeightBytes), largestRun: largestRun,
            maxWork: maxWork)
    }

    /// An installed network (`installed`) read and held to what its user needs (`check`),
    /// or why it cannot be: what each model keeps, read once on first use.
    static func loading(
        _ folder: String, files: (cfg: String, weights: String), maxWeightBytes: Int, largestRun: Int = maxRunSide,
        maxWork: Int = maxOperations, check: (Darknet) throws(ReadError) -> Void
    ) -> Result<Darknet, ReadError> {
        Result { () throws(ReadError) -> Darknet in
            let network = try installed(
                folder, cfg: files.cfg, weights: files.weights, maxWeightBytes: maxWeightBytes,
                largestRun: largestRun, maxWork: maxWork)
            try check(network)
            return network
        }
    }

    /// The layers of the cfg's sections, each checked and given its weights in order.
    static func layers(_ sections: ArraySlice<Section>, input: Shape, weights reader: inout WeightReader)
        throws(ReadError) -> [Layer]
    {
        var layers: [Layer] = [], channels: [Int] = []
        for section in sections {
            let index = layers.count
            let inputs = channels.last ?? input.channels
            func absolute(_ i: Int) throws(ReadError) -> Int {
                let at = i < 0 ? index + i : i
                guard at >= 0, at < index else {
                    throw ReadError(description: "layer \(index) refers to layer \(i), which is not before it")
                }
                return at
            }
            var outputChannels = inputs
            switch section.name {
            case "convolutional":
                let convolution = try convolution(section, index: index, inputs: inputs, weights: &reader)
                outputChannels = convolution.outputs
                layers.append(.convolution(convolution))
            case "shortcut":
                let from = try absolute(try section.int("from", nil, -Self.maxLayers...Self.maxLayers))
                guard channels[from] == inputs, (section.values["activation"] ?? "linear").trimmingSpaces == "linear"
                else { throw ReadError(description: "layer \(index): the shortcut's shapes differ") }
                layers.append(.shortcut(from: from))
            case "route":
                var from: [Int] = []
                for i in try section.ints("layers") { from.append(try absolute(i)) }
                outputChannels = from.reduce(0) { $0 + channels[$1] }
                guard !from.isEmpty, outputChannels <= Self.maxChannels else {
                    throw ReadError(description: "layer \(index): too many channels")
                }
                layers.append(.route(from))
            case "maxpool":
                let size = try section.int("size", 1, 1...Int(CD_MAX_TAPS))
                let step = try section.int("stride", 1, 1...2)
                guard step == 1 ? size % 2 == 1 : size == 2 else {
                    throw ReadError(
                        description: "layer \(index): only odd max pools at stride 1, and 2 x 2 at 2, are supported")
                }
                layers.append(.maxpool(size: size, step: step))
            case "upsample":
                _ = try section.int("stride", 2, 2...2)
                layers.append(.upsample)
            case "resize":
                layers.append(
                    .resize(like: try absolute(try section.int("like", nil, -Self.maxLayers...Self.maxLayers))))
            case "logistic":
                layers.append(.logistic)
            case "avgpool":
                layers.append(.average)
            case "softmax":
                _ = try section.int("groups", 1, 1...1)  // over all channels
                layers.append(.softmax)
            case "dropout":
                layers.append(.dropout)
            case "yolo":
                layers.append(.yolo(try yolo(section, index: index, inputs: inputs)))
            default:
                throw ReadError(description: "layer \(index): [\(section.name.prefix(20))] is not supported")
            }
            channels.append(outputChannels)
        }
        return layers
    }

    /// A `[convolutional]` section on `inputs` channels, its weights read (batch
    /// normalisation folded into them).
    static func convolution(_ section: Section, index: Int, inputs: Int, weights reader: inout WeightReader)
        throws(ReadError) -> Convolution
    {
        let outputs = try section.int("filters", nil, 1...Self.maxChannels)
        let size = try section.int("size", 1, 1...Int(CD_MAX_TAPS))
        let step = try section.int("stride", 1, 1...2)
        let dilation = try section.int("dilation", 1, 1...Self.maxDilation)
        let extent = dilation * (size - 1) + 1
        let pad =
            section.values["padding"] == nil
            ? (try section.int("pad", 0, 0...1) == 1 ? extent / 2 : 0)
            : try section.int("padding", nil, 0...extent - 1)
        let padAfter = try section.int("padding_after", pad, 0...extent - 1)
        let groups = try section.int("groups", 1, 1...Self.maxChannels)
        let normalised = try section.int("batch_normalize", 0, 0...1) == 1
        let name = section.values["activation"]?.trimmingSpaces ?? "logistic"
        let activation: Activation
        switch name {
        case "leaky": activation = .leaky
        case "relu6": activation = .relu6
        case "relu": activation = .relu
        case "linear": activation = .linear
        default: throw ReadError(description: "layer \(index): activation \(name.prefix(20)) is not supported")
        }
        let form = section.values["weights"]?.trimmingSpaces ?? "float"
        guard form == "float" || form == "int8" || form == "half", form == "float" || !normalised else {
            throw ReadError(description: "layer \(index): weights=\(form.prefix(20)) is not supported")
        }
        guard size % 2 == 1, groups == 1 || (groups == inputs && outputs == groups),
            dilation == 1 || (groups == 1 && size > 1)
        else {
            throw ReadError(
                description:
                    "layer \(index): only full and depthwise odd-sized kernels, full ones dilated, are supported")
        }
        let count = outputs * (inputs / groups) * size * size
        var bias = try reader.floats(outputs)
        var kernel: [Float] = []
        var weights: Weights?
        if normalised {
            let scales = try reader.floats(outputs), means = try reader.floats(outputs)
            let variances = try reader.floats(outputs)
            kernel = try reader.floats(count)
            // darknet's inference: (x - mean) / sqrt(variance + 1e-6) * scale + bias.
            let per = count / outputs
            for o in 0..<outputs {
                guard variances[o] >= 0 else {
                    throw ReadError(description: "layer \(index): a negative variance")
                }
                let factor = scales[o] / (variances[o] + 0.000001).squareRoot()
                for k in 0..<per { kernel[o * per + k] *= factor }
                bias[o] -= means[o] * factor
            }
            guard kernel.allSatisfy(\.isFinite), bias.allSatisfy(\.isFinite) else {
                throw ReadError(description: "layer \(index): the weights overflow once normalised")
            }
        } else if form == "int8" {
            let scales = try reader.floats(outputs)
            // Every weight (at most 128 x its scale: codes run from -128) finite, as darknet's
            // float ones must be.
            guard scales.allSatisfy({ ($0 * 128).isFinite }) else {
                throw ReadError(description: "layer \(index): an int8 scale overflows")
            }
            weights = Weights(codes: try reader.int8s(count), scales: scales)
        } else if form == "half" {
            kernel = try reader.halves(count)
        } else {
            kernel = try reader.floats(count)
        }
        return Convolution(
            inputs: inputs, outputs: outputs, size: size, step: step, dilation: dilation, pad: pad,
            padAfter: padAfter, groups: groups,
            activation: activation, weights: weights ?? Weights(Floats(kernel), per: count / outputs),
            bias: Floats(bias))
    }

    /// A `[yolo]` section on `inputs` channels.
    static func yolo(_ section: Section, index: Int, inputs: Int) throws(ReadError) -> Yolo {
        let anchors = try section.ints("anchors"), mask = try section.ints("mask")
        let classes = try section.int("classes", nil, 1...1000)
        guard anchors.count % 2 == 0, !mask.isEmpty,
            mask.allSatisfy({ $0 >= 0 && 2 * $0 + 1 < anchors.count }),
            anchors.allSatisfy({ $0 > 0 && $0 <= 4 * Self.maxSide }),
            inputs == mask.count * (classes + 5),
            section.values["scale_x_y"].map({ Double($0.trimmingSpaces) == 1 }) ?? true
        else { throw ReadError(description: "layer \(index): the yolo layer does not match its input") }
        return Yolo(
            anchors: mask.map { (Double(anchors[2 * $0]), Double(anchors[2 * $0 + 1])) }, classes: classes)
    }

    /// What a run may cost, before any: at `side` square (the detector runs at most 640
    /// long, and no map grows with a smaller side), no map over `maxMapFloats`, the
    /// maps alive at once (as `run` keeps them) at most `maxAliveFloats`, and at most
    /// `maxOperations` multiply-adds, comparisons and copies in all. A full convolution
    /// (unfolded a band at a time) takes at most `maxUnfoldTaps` inputs a pixel.
    static func checkCost(_ layers: [Layer], input: Shape, side: Int, maxWork: Int = maxOperations)
        throws(ReadError)
    {
        let run = Shape(channels: input.channels, width: side, height: side)
        guard let big = Self.shapes(of: layers, for: run) else {
            throw ReadError(description: "the layers' sizes do not fit a \(side) px input")
        }
        let lastUse = Self.lastUses(layers)
        var work = 0, alive = 0, peak = 0
        for (i, (layer, shape)) in zip(layers, big).enumerated() {
            guard shape.channels * shape.pixels <= Self.maxMapFloats else {
                throw ReadError(description: "layer \(i)'s map would be too large")
            }
            // A convolution's multiply-adds run a vector at a time; the other layers' work is
            // plain C or Swift, a value at a time: it counts `scalarCost` times.
            var bands = 0
            switch layer {
            case .convolution(let c):
                work += shape.pixels * c.outputs * (c.inputs / c.groups) * c.size * c.size
                if c.groups == 1, c.size > 1 || c.step > 1 {
                    let taps = c.inputs * c.size * c.size
                    guard taps <= Self.maxUnfoldTaps else {
                        throw ReadError(description: "layer \(i): a full convolution over too many inputs")
                    }
                    // Each of its (at most `maxBandWorkers`) workers' bands: the unfolded
                    // inputs and the outputs of some 4096 pixels (a row at least); and its
                    // weights widened from int8 for the run.
                    bands =
                        Self.maxBandWorkers * (taps + c.outputs) * max(4096, shape.width)
                        + (c.weights.isFloat ? 0 : c.outputs * taps)
                }
            case .maxpool(let size, _): work += Self.scalarCost * shape.pixels * shape.channels * size * size
            case .resize: work += Self.scalarCost * shape.pixels * shape.channels * 4
            case .shortcut, .route, .upsample, .softmax, .logistic:
                work += Self.scalarCost * shape.pixels * shape.channels
            case .average: work += Self.scalarCost * (i == 0 ? run : big[i - 1]).pixels * shape.channels
            case .dropout, .yolo: break
            }
            if case .dropout = layer {} else if case .yolo = layer {} else { alive += shape.channels * shape.pixels }
            peak = max(peak, alive + bands)
            for j in 0..<i where lastUse[j] == i {
                if case .dropout = layers[j] {
                } else if case .yolo = layers[j] {
                } else {
                    alive -= big[j].channels * big[j].pixels
                }
            }
            guard work <= maxWork, peak <= Self.maxAliveFloats else {
                throw ReadError(description: "the network would take too long or too much memory")
            }
        }
    }

    /// The last layer that reads each layer's output (itself when none does): `run` drops a
    /// map after it.
    static func lastUses(_ layers: [Layer]) -> [Int] {
        var lastUse = Array(0..<layers.count)
        for (i, layer) in layers.enumerated() {
            switch layer {
            case .shortcut(let from): lastUse[from] = max(lastUse[from], i)
            case .route(let from): for f in from { lastUse[f] = max(lastUse[f], i) }
            case .convolution, .maxpool, .upsample, .resize, .average, .dropout, .yolo, .softmax, .logistic: break
            }
            if i > 0 { lastUse[i - 1] = max(lastUse[i - 1], i) }
        }
        // A dropout or yolo layer hands on its input's map: that map lives as long as it.
        for (i, layer) in layers.enumerated().reversed() where i > 0 {
            switch layer {
            case .dropout, .yolo: lastUse[i - 1] = max(lastUse[i - 1], lastUse[i])
            case .convolution, .shortcut, .route, .maxpool, .upsample, .resize, .average, .softmax, .logistic: break
            }
        }
        return lastUse
    }

    /// The largest side `run` is promised to take within the bounds checked at reading.
    static let maxRunSide = 640, maxMapFloats = 1 << 24, maxAliveFloats = 1 << 25, maxOperations = 2_000_000_000
    /// The most any network may be given leave to cost (the mask's: 20 G multiply-adds).
    static let largestWork = 32_000_000_000
    static let maxUnfoldTaps = 2048, maxDilation = 16
    /// What a value's plain work counts for against a vector's multiply-add (`checkCost`).
    static let scalarCost = 8
    /// The workers a full convolution's bands are split over at most.
    static let maxBandWorkers = 2

    /// Each layer's output for an input of `input`'s shape, or nil when the layers do not
    /// fit it (a route or shortcut joins maps of different sizes, a kernel is larger than
    /// its input, a map grows past `maxSide`). Yolo-Fastest takes sides that are multiples
    /// of 32.
    static func shapes(of layers: [Layer], for input: Shape) -> [Shape]? {
        var shapes: [Shape] = []
        for layer in layers {
            let previous = shapes.last ?? input
            var shape = previous
            switch layer {
            case .convolution(let c):
                let around = c.pad + c.padAfter
                shape = Shape(
                    channels: c.outputs, width: (previous.width + around - c.extent) / c.step + 1,
                    height: (previous.height + around - c.extent) / c.step + 1)
                guard previous.width + around >= c.extent, previous.height + around >= c.extent else { return nil }
            case .shortcut(let from):
                guard shapes[from] == previous else { return nil }
            case .route(let from):
                shape = shapes[from[0]]
                guard from.allSatisfy({ shapes[$0].width == shape.width && shapes[$0].height == shape.height }) else {
                    return nil
                }
                shape.channels = from.reduce(0) { $0 + shapes[$1].channels }
            case .upsample:
                shape.width *= 2
                shape.height *= 2
                guard shape.width <= maxSide, shape.height <= maxSide else { return nil }
            case .resize(let like):
                (shape.width, shape.height) = (shapes[like].width, shapes[like].height)
            case .average:
                (shape.width, shape.height) = (1, 1)
            case .softmax:
                guard previous.pixels == 1 else { return nil }
            case .maxpool(_, let step):
                (shape.width, shape.height) = ((shape.width + step - 1) / step, (shape.height + step - 1) / step)
            case .dropout, .yolo, .logistic:
                break
            }
            shapes.append(shape)
        }
        return shapes
    }

    struct Section {
        let name: String
        var values: [String: String] = [:]

        /// The integer `key`, within `range`; `fallback` when it is absent (an error when nil).
        func int(_ key: String, _ fallback: Int?, _ range: ClosedRange<Int>) throws(ReadError) -> Int {
            guard let text = values[key] else {
                if let fallback { return fallback }
                throw ReadError(description: "[\(name.prefix(20))] has no \(key)")
            }
            guard let value = Int(text.trimmingSpaces), range.contains(value) else {
                throw ReadError(description: "[\(name.prefix(20))] \(key)=\(text.prefix(20)) is outside \(range)")
            }
            return value
        }

        /// The comma-separated integers `key` (at most 64; none when absent).
        func ints(_ key: String) throws(ReadError) -> [Int] {
            let text = values[key] ?? ""
            var list: [Int] = []
            for part in text.split(separator: ",") {
                guard let value = Int(String(part).trimmingSpaces), list.count < 64 else {
                    throw ReadError(
                        description: "[\(name.prefix(20))] \(key)=\(text.prefix(20)) is not a list of numbers")
                }
                list.append(value)
            }
            return list
        }
    }

    /// The cfg's `[name]` sections and their `key=value` lines (`#` and `;` start comments).
    static func sections(_ cfg: [UInt8]) throws(ReadError) -> [Section] {
        guard cfg.count <= 1 << 20, let text = String(validating: cfg, as: UTF8.self) else {
            throw ReadError(description: "the cfg is not UTF-8 text under 1 MiB")
        }
        var sections: [Section] = []
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = String(raw).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ReadError(description: "bad section \(line.prefix(20))")
                }
                sections.append(Section(name: String(line.dropFirst().dropLast())))
            } else if let equals = line.firstIndex(of: "="), !sections.isEmpty {
                let key = String(line[..<equals]).trimmingSpaces
                sections[sections.count - 1].values[key] = String(line[line.index(after: equals)...])
            } else {
                throw ReadError(description: "a cfg line outside a section or without =")
            }
        }
        return sections
    }

    /// darknet's weights: a header (major, minor, revision as int32, then the images seen
    /// as int64 from version 0.2 on, else int32), then little-endian float32s.
    struct WeightReader {
        let bytes: [UInt8]
        var at = 0

        var atEnd: Bool { at == bytes.count }

        mutating func header() throws(ReadError) {
            let major = try int32(), minor = try int32()
            _ = try int32()
            at += (major * 10 + minor >= 2 && major < 1000 && minor < 1000) ? 8 : 4
            guard at <= bytes.count else { throw ReadError(description: "the weights file is cut short") }
        }

        mutating func int32() throws(ReadError) -> Int {
            guard bytes.count - at >= 4 else { throw ReadError(description: "the weights file is cut short") }
            defer { at += 4 }
            return Int(Int32(bitPattern: bytes[at..<at + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
        }

        mutating func floats(_ count: Int) throws(ReadError) -> [Float] {
            guard count <= Darknet.maxWeights, (bytes.count - at) / 4 >= count else {
                throw ReadError(description: "the weights file holds fewer weights than the layers take")
            }
            var values = [Float](repeating: 0, count: count)
            values.withUnsafeMutableBytes { target in
                bytes.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[at..<at + 4 * count]))
                }
            }
            #if _endian(big)
                values = values.map { Float(bitPattern: $0.bitPattern.byteSwapped) }
            #endif
            for v in values where !v.isFinite {
                throw ReadError(description: "the weights hold a value that is not a number")
            }
            at += 4 * count
            return values
        }

        /// `count` int8 weights.
        mutating func int8s(_ count: Int) throws(ReadError) -> [Int8] {
            guard count <= Darknet.maxWeights, bytes.count - at >= count else {
                throw ReadError(description: "the weights file holds fewer weights than the layers take")
            }
            defer { at += count }
            return bytes[at..<at + count].map { Int8(bitPattern: $0) }
        }

        /// `count` IEEE float16 weights, little-endian.
        mutating func halves(_ count: Int) throws(ReadError) -> [Float] {
            guard count <= Darknet.maxWeights, (bytes.count - at) / 2 >= count else {
                throw ReadError(description: "the weights file holds fewer weights than the layers take")
            }
            let values = (0..<count).map {
                Self.float(half: UInt16(bytes[at + 2 * $0]) | UInt16(bytes[at + 2 * $0 + 1]) << 8)
            }
            for v in values where !v.isFinite {
                throw ReadError(description: "the weights hold a value that is not a number")
            }
            at += 2 * count
            return values
        }

        /// An IEEE float16's value (written out: Swift's Float16 is missing on Intel Macs).
        static func float(half bits: UInt16) -> Float {
            let negative = bits >> 15 != 0, exponent = Int(bits >> 10 & 0x1f), fraction = UInt32(bits & 0x3ff)
            switch exponent {
            case 0: return Float(sign: negative ? .minus : .plus, exponent: -24, significand: Float(fraction))
            case 31: return fraction == 0 ? (negative ? -.infinity : .infinity) : .nan
            default:
                return Float(
                    bitPattern: (negative ? 1 << 31 : 0) | UInt32(exponent - 15 + 127) << 23 | fraction << 13)
            }
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}

/// A planar float feature map: `shape.channels` planes, `cd_plane_stride` apart, in storage
/// that may come from a `MapPool` and goes back to it.
package final class FeatureMap: @unchecked Sendable {
    package let shape: Darknet.Shape
    let stride: Int
    let values: UnsafeMutablePointer<Float>
    private let storage: Floats
    private let pool: MapPool?

    package convenience init(_ shape: Darknet.Shape) { self.init(shape, pool: nil) }

    init(_ shape: Darknet.Shape, pool: MapPool?) {
        self.shape = shape
        stride = cd_plane_stride(shape.pixels)
        self.pool = pool
        storage = pool?.take(stride * shape.channels) ?? Floats(stride * shape.channels)
        values = storage.values
    }

    deinit { pool?.give(storage) }

    func plane(_ c: Int) -> UnsafeMutablePointer<Float> { values + c * stride }
}

/// Floats at a fixed address for the kernels (a layer's weights, a map's planes), zeroed
/// unless copied from an array. On Linux, a megabyte or more is mapped 2 MiB-aligned, its
/// whole 2 MiB pages huge where the kernel gives them (transparent huge pages, `madvise`):
/// the first run's maps touch some 30 MB, which in 4 KiB pages cost more page faults than
/// the network's arithmetic. Only whole pages: a 2.8 MB map advised to its rounded-up
/// length took 4 MB, and a detection 9 MB more at its peak (55 MB against 46 MB).
final class Floats: @unchecked Sendable {  // the pointer never changes
    let count: Int
    let values: UnsafeMutablePointer<Float>
    private let mapping: (address: UnsafeMutableRawPointer, length: Int)?

    init(_ count: Int) {
        self.count = count
        let bytes = max(1, count) * MemoryLayout<Float>.stride
        #if os(Linux)
            let huge = 2 << 20
            if bytes >= 1 << 20 {
                let length = (bytes + huge - 1) / huge * huge + huge
                if let raw = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                    raw != MAP_FAILED
                {
                    let aligned = UnsafeMutableRawPointer(
                        bitPattern: (Int(bitPattern: raw) + huge - 1) / huge * huge)!
                    if bytes >= huge { _ = madvise(aligned, bytes / huge * huge, MADV_HUGEPAGE) }
                    mapping = (raw, length)
                    values = aligned.bindMemory(to: Float.self, capacity: max(1, count))
                    return
                }
            }
        #endif
        mapping = nil
        values = calloc(max(1, count), MemoryLayout<Float>.stride)!.bindMemory(
            to: Float.self, capacity: max(1, count))
    }

    convenience init(_ array: [Float]) {
        self.init(array.count)
        values.update(from: array, count: array.count)
    }

    deinit {
        if let mapping {
            munmap(mapping.address, mapping.length)
        } else {
            #if canImport(Glibc)
                Glibc.free(values)
            #else
                Darwin.free(values)
            #endif
        }
    }
}

/// A convolution's weights as held: float32, or int8 codes with a float32 scale an output
/// (catctl's `weights=int8`: a quarter of the memory; the classifier's 4.2 M int8 weights take
/// 4 MB, not 17), widened to float32 a block of outputs at a time as they run, to the same
/// values a widening at reading gave.
final class Weights: @unchecked Sendable {  // never changes once made
    /// Weights an output.
    let per: Int
    private let floats: Floats?
    private let codes: [Int8], scales: [Float]

    init(_ floats: Floats, per: Int) {
        (self.floats, self.per, codes, scales) = (floats, per, [], [])
    }

    init(codes: [Int8], scales: [Float]) {
        (floats, self.codes, self.scales) = (nil, codes, scales)
        per = scales.isEmpty ? 0 : codes.count / scales.count
    }

    /// Held as float32: `outputs` gives them in place, whatever the range.
    var isFloat: Bool { floats != nil }

    /// The float32 weights of outputs [first, end): in place when held so, else widened into
    /// `buffer` ((end - first) x `per` floats).
    func outputs(_ first: Int, _ end: Int, into buffer: UnsafeMutablePointer<Float>) -> UnsafePointer<Float> {
        if let floats { return UnsafePointer(floats.values + first * per) }
        codes.withUnsafeBufferPointer { codes in
            cd_widen(codes.baseAddress, scales, per, Int32(first), Int32(end), buffer)
        }
        return UnsafePointer(buffer)
    }

    /// The floats `outputs` needs in its buffer for `count` outputs (none when held so).
    func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
        .allocate(capacity: isFloat ? 1 : max(1, count * per))
    }
}

/// The maps of one run, handed back as soon as no later layer reads them and taken again
/// by the next map that fits: a run touches a few buffers' pages instead of one set a
/// layer. Reused storage keeps its old values where the new map has padding, which only
/// padding reads; new storage starts at zero. One thread at a time.
final class MapPool: @unchecked Sendable {
    private var free: [Floats] = []

    /// The smallest free storage of at least `count` floats, or new storage.
    func take(_ count: Int) -> Floats {
        guard let best = free.indices.filter({ free[$0].count >= count }).min(by: { free[$0].count < free[$1].count })
        else { return Floats(count) }
        return free.remove(at: best)
    }

    func give(_ storage: Floats) { free.append(storage) }
}

extension Darknet {
    /// Runs the network on `input` (`input`'s channels, sides that the layers fit, at most
    /// `largestRun`: see `shapes(of:for:)`; none for sides that do not) and gives its outputs
    /// in order: each yolo layer's input, each softmax and logistic layer's output. Work is split by channel over `threads` threads; the result does not depend
    /// on them, nor on the instruction set.
    package func run(_ input: FeatureMap, threads: Int) -> [FeatureMap] { run(input, threads: threads, runtime: .own) }

    /// `run` by `runtime`: with XNNPACK, its operators (made on first use; catctl's kernels
    /// when XNNPACK cannot make or run them), the same values within float rounding.
    package func run(_ input: FeatureMap, threads: Int, runtime: NetworkRuntime) -> [FeatureMap] {
        precondition(input.shape.channels == self.input.channels)
        guard input.shape.width <= largestRun, input.shape.height <= largestRun,
            let shapes = Self.shapes(of: layers, for: input.shape)
        else { return [] }
        let lastUse = Self.lastUses(layers)
        if runtime == .xnnpack, let network = xnnpack.network(for: self, threads: threads),
            let outputs = network.run(
                input, shapes: shapes, lastUse: lastUse, outputs: layers.indices.filter { layers[$0].isOutput })
        {
            return outputs
        }
        let pool = MapPool()
        var maps: [FeatureMap?] = Array(repeating: nil, count: layers.count)
        var outputs: [FeatureMap] = []
        var fused = -1
        for (i, layer) in layers.enumerated() where i != fused {
            let previous = i == 0 ? input : maps[i - 1]!
            // A 1x1 convolution read only by the depthwise one after it (each block's
            // expansion, the largest maps of all): both, a channel at a time, and the
            // expanded map is never made whole. The same sums in the same order.
            if case .convolution(let expand) = layer, expand.groups == 1, expand.size == 1, expand.step == 1,
                i + 1 < layers.count,
                lastUse[i] == i + 1, case .convolution(let depthwise) = layers[i + 1], depthwise.groups > 1
            {
                let out = FeatureMap(shapes[i + 1], pool: pool)
                Self.expandAndFilter(expand, depthwise, previous, into: out, threads: threads)
                fused = i + 1
                maps[i + 1] = out
                for j in 0...i where lastUse[j] <= i + 1 { maps[j] = nil }
                continue
            }
            let out: FeatureMap
            switch layer {
            case .convolution(let conv):
                out = FeatureMap(shapes[i], pool: pool)
                Self.convolve(conv, previous, into: out, threads: threads)
            case .shortcut(let from):
                out = FeatureMap(shapes[i], pool: pool)
                let other = maps[from]!
                for c in 0..<out.shape.channels {
                    let a = previous.plane(c), b = other.plane(c), y = out.plane(c)
                    for p in 0..<out.shape.pixels { y[p] = a[p] + b[p] }
                }
            case .route(let from):
                out = FeatureMap(shapes[i], pool: pool)
                var channel = 0
                for f in from {
                    let source = maps[f]!
                    for c in 0..<source.shape.channels {
                        out.plane(channel).update(from: source.plane(c), count: source.shape.pixels)
                        channel += 1
                    }
                }
            case .maxpool(let size, let step):
                out = FeatureMap(shapes[i], pool: pool)
                if step == 1 {
                    cd_maxpool(
                        previous.values, previous.stride, Int32(previous.shape.width), Int32(previous.shape.height),
                        Int32(size), 0, Int32(previous.shape.channels), out.values)
                } else {
                    cd_maxpool_half(
                        previous.values, previous.stride, Int32(previous.shape.width), Int32(previous.shape.height), 0,
                        Int32(previous.shape.channels), out.values, out.stride)
                }
            case .resize:
                out = FeatureMap(shapes[i], pool: pool)
                cd_resize(
                    previous.values, previous.stride, Int32(previous.shape.width), Int32(previous.shape.height),
                    Int32(previous.shape.channels), out.values, out.stride, Int32(out.shape.width),
                    Int32(out.shape.height))
            case .logistic:
                out = FeatureMap(shapes[i], pool: pool)
                cd_logistic(
                    previous.values, previous.stride, Int32(previous.shape.channels), previous.shape.pixels, out.values,
                    out.stride)
                outputs.append(out)
            case .upsample:
                out = FeatureMap(shapes[i], pool: pool)
                let w = previous.shape.width
                for c in 0..<out.shape.channels {
                    let x = previous.plane(c), y = out.plane(c)
                    for row in 0..<out.shape.height {
                        for col in 0..<out.shape.width { y[row * 2 * w + col] = x[(row / 2) * w + col / 2] }
                    }
                }
            case .average:
                out = FeatureMap(shapes[i], pool: pool)
                cd_average(
                    previous.values, previous.stride, Int32(previous.shape.channels), previous.shape.pixels, out.values,
                    out.stride)
            case .softmax:
                out = FeatureMap(shapes[i], pool: pool)
                let channels = out.shape.channels
                let largest = (0..<channels).map { previous.plane($0)[0] }.max() ?? 0
                var sum = 0.0
                for c in 0..<channels {
                    let e = exp(Double(previous.plane(c)[0] - largest))
                    out.plane(c)[0] = Float(e)
                    sum += e
                }
                for c in 0..<channels { out.plane(c)[0] = Float(Double(out.plane(c)[0]) / sum) }
                outputs.append(out)
            case .dropout:
                out = previous
            case .yolo:
                out = previous
                outputs.append(previous)
            }
            maps[i] = out
            for j in 0...i where lastUse[j] <= i && j != i { maps[j] = nil }
        }
        return outputs
    }

    /// A 1x1 convolution and the depthwise one that reads its output, a channel at a time:
    /// each of `expand`'s output planes is made into a scratch plane and at once filtered
    /// by `depthwise` into `out`. Channels are split over `threads`.
    static func expandAndFilter(
        _ expand: Convolution, _ depthwise: Convolution, _ input: FeatureMap, into out: FeatureMap, threads: Int
    ) {
        let (width, height) = (input.shape.width, input.shape.height)
        let channels = expand.outputs
        let work = input.shape.pixels * channels * (expand.inputs + depthwise.size * depthwise.size)
        let workers = max(1, min(threads, channels / 8, work / 100_000))
        let scratch = cd_depthwise_scratch(
            Int32(width), Int32(height), Int32(depthwise.size), Int32(depthwise.step), Int32(depthwise.pad),
            Int32(depthwise.padAfter))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let plane = FeatureMap(Darknet.Shape(channels: 1, width: width, height: height))
            let padded = UnsafeMutablePointer<Float>.allocate(capacity: scratch)
            let (expandRow, filterRow) = (expand.weights.buffer(1), depthwise.weights.buffer(1))
            defer { padded.deallocate(); expandRow.deallocate(); filterRow.deallocate() }
            for c in channels * worker / workers..<channels * (worker + 1) / workers {
                cd_pointwise(
                    input.values, input.stride, Int32(expand.inputs), input.shape.pixels,
                    expand.weights.outputs(c, c + 1, into: expandRow), expand.bias.values + c, 0, 1,
                    expand.activation.rawValue, plane.values, plane.stride)
                cd_depthwise(
                    plane.values, plane.stride, Int32(width), Int32(height), Int32(depthwise.size),
                    Int32(depthwise.step), Int32(depthwise.pad), Int32(depthwise.padAfter),
                    depthwise.weights.outputs(c, c + 1, into: filterRow), depthwise.bias.values + c, 0, 1,
                    depthwise.activation.rawValue, out.values + c * out.stride, out.stride, padded)
            }
        }
    }

    static func convolve(_ conv: Convolution, _ input: FeatureMap, into out: FeatureMap, threads: Int) {
        let (width, height) = (input.shape.width, input.shape.height)
        // A thread more pays for waking it only with some 100k multiply-adds or more to share.
        let work =
            out.shape.pixels * conv.outputs
            * (conv.groups > 1 ? conv.size * conv.size : conv.inputs * conv.size * conv.size)
        let workers = max(1, min(threads, conv.outputs / 8, work / 100_000))
        let (weights, bias) = (conv.weights, conv.bias)
        let activation = conv.activation.rawValue
        if conv.groups > 1 {
            let scratch = cd_depthwise_scratch(
                Int32(width), Int32(height), Int32(conv.size), Int32(conv.step), Int32(conv.pad), Int32(conv.padAfter))
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let first = conv.outputs * worker / workers, end = conv.outputs * (worker + 1) / workers
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: scratch)
                let filters = weights.buffer(end - first)
                defer { buffer.deallocate(); filters.deallocate() }
                // Channels [first, end) as channels [0, end - first) of planes from `first` on.
                cd_depthwise(
                    input.values + first * input.stride, input.stride, Int32(width), Int32(height), Int32(conv.size),
                    Int32(conv.step), Int32(conv.pad), Int32(conv.padAfter),
                    weights.outputs(first, end, into: filters), bias.values + first, 0, Int32(end - first), activation,
                    out.values + first * out.stride, out.stride, buffer)
            }
            return
        }
        if conv.size > 1 || conv.step > 1 {
            // A full convolution (the first layer's): unfolded a band of rows at a time, a
            // band each of about 4096 pixels, those rows run as a 1x1 convolution into a band
            // of the worker's own (the kernel writes past a band's last pixel), then copied.
            let taps = conv.inputs * conv.size * conv.size
            let (ow, oh) = (out.shape.width, out.shape.height)
            let band = max(1, 4096 / ow), bands = (oh + band - 1) / band
            let step = max(1, min(workers, bands, Self.maxBandWorkers))
            // The weights widened once (from int8), read by every worker.
            let buffer = weights.buffer(conv.outputs)
            defer { buffer.deallocate() }
            nonisolated(unsafe) let filters = weights.outputs(0, conv.outputs, into: buffer)  // read only
            DispatchQueue.concurrentPerform(iterations: step) { worker in
                let unfolded = FeatureMap(Darknet.Shape(channels: taps, width: ow, height: band))
                let rows = FeatureMap(Darknet.Shape(channels: conv.outputs, width: ow, height: band))
                for b in stride(from: worker, to: bands, by: step) {
                    let first = b * band, end = min(oh, first + band)
                    cd_unfold(
                        input.values, input.stride, Int32(conv.inputs), Int32(width), Int32(height), Int32(conv.size),
                        Int32(conv.step), Int32(conv.dilation), Int32(conv.pad), Int32(conv.padAfter), Int32(first),
                        Int32(end), unfolded.values, unfolded.stride)
                    cd_pointwise(
                        unfolded.values, unfolded.stride, Int32(taps), (end - first) * ow, filters, bias.values,
                        0, Int32(conv.outputs), activation, rows.values, rows.stride)
                    for o in 0..<conv.outputs {
                        (out.plane(o) + first * ow).update(from: rows.plane(o), count: (end - first) * ow)
                    }
                }
            }
            return
        }
        let (source, inputs) = (input, conv.inputs)
        let blocks = (conv.outputs + 3) / 4
        let (unfolded, taps) = (source, inputs)
        // Widened weights a block of outputs at a time (some 64k floats), held ones all at once.
        let block = weights.isFloat ? conv.outputs : max(4, 65536 / max(1, inputs) / 4 * 4)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let first = 4 * (blocks * worker / workers)
            let end = min(conv.outputs, 4 * (blocks * (worker + 1) / workers))
            let buffer = weights.buffer(min(block, end - first))
            defer { buffer.deallocate() }
            for start in stride(from: first, to: end, by: block) {
                let stop = min(end, start + block)
                // Outputs [start, stop) as outputs [0, stop - start) of planes from `start` on.
                cd_pointwise(
                    unfolded.values, unfolded.stride, Int32(taps), out.shape.pixels,
                    weights.outputs(start, stop, into: buffer), bias.values + start, 0, Int32(stop - start),
                    activation, out.values + start * out.stride, out.stride)
            }
        }
    }
}

extension Result where Success == Darknet, Failure == Darknet.ReadError {
    /// The network, when it could be read.
    var network: Darknet? { try? get() }

    /// "`what` cannot be read: why", or nil when it could be.
    func unavailable(_ what: String) -> String? {
        if case .failure(let error) = self { return "\(what) cannot be read: \(error)" }
        return nil
    }
}
