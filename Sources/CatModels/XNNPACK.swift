internal import CCatModels
import CatSupport

/// Which code runs a network's layers: catctl's own kernels (`Darknet.run`: every build the
/// same bits, no library needed), or XNNPACK's operators (`cat_xnnpack.h`: Debian's
/// libxnnpack0, loaded on first use; 2-3 times faster where it is, the sums in its own order).
package enum NetworkRuntime: Sendable, Equatable {
    case own, xnnpack

    /// `preferred` (each network's, measured: docs/detection.md), or the one
    /// `CATCTL_NETWORK_RUNTIME` names (`own` or `xnnpack`: to measure one against the other
    /// in one build); XNNPACK only where it can run, else catctl's own kernels.
    package static func chosen(_ preferred: NetworkRuntime) -> NetworkRuntime {
        let runtime: NetworkRuntime
        switch ProcessInfo.processInfo.environment["CATCTL_NETWORK_RUNTIME"] {
        case "own": runtime = .own
        case "xnnpack": runtime = .xnnpack
        default: runtime = preferred
        }
        return runtime == .xnnpack && XNNPACK.unavailable == nil ? .xnnpack : .own
    }
}

/// XNNPACK as a runtime for `Darknet` networks.
package enum XNNPACK {
    /// Why XNNPACK cannot run networks here (not installed, another version of its API, its
    /// self-test failed, or catctl built without it), or nil when it can. Loads it once.
    package static var unavailable: String? { availability }

    private static let availability: String? = {
        var why = [CChar](repeating: 0, count: 256)
        return xp_available(&why, why.count) == 1
            ? nil : String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()
}

/// One network's XNNPACK operators, made once (its weights packed by XNNPACK) and run at
/// any input size its layers fit; one run at a time (the operators hold a run's sizes).
final class XNNPACKNetwork: @unchecked Sendable {  // the handle is used under its own lock
    private let handle: OpaquePointer

    /// `network`'s operators on `threads` threads, or nil (with why) when XNNPACK cannot make one.
    init(_ network: Darknet, threads: Int) throws(Darknet.ReadError) {
        var layers: [xp_layer] = []
        var kept: [UnsafeMutableRawPointer] = []  // the sources and widened weights, until made
        defer { for pointer in kept { pointer.deallocate() } }
        for layer in network.layers {
            var l = xp_layer()
            func sources(_ list: [Int]) {
                let p = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, list.count))
                for (k, v) in list.enumerated() { p[k] = Int32(v) }
                kept.append(UnsafeMutableRawPointer(p))
                l.sources = UnsafePointer(p)
                l.source_count = Int32(list.count)
            }
            switch layer {
            case .convolution(let c):
                l.kind = Int32(XP_CONVOLUTION)
                (l.inputs, l.outputs, l.size, l.step) = (
                    Int32(c.inputs), Int32(c.outputs), Int32(c.size), Int32(c.step)
                )
                (l.dilation, l.pad, l.pad_after, l.groups) =
                    (Int32(c.dilation), Int32(c.pad), Int32(c.padAfter), Int32(c.groups))
                l.activation = c.activation.rawValue
                let buffer = c.weights.buffer(c.outputs)
                kept.append(UnsafeMutableRawPointer(buffer))
                l.weights = c.weights.outputs(0, c.outputs, into: buffer)
                l.bias = UnsafePointer(c.bias.values)
            case .shortcut(let from):
                l.kind = Int32(XP_SHORTCUT)
                sources([from])
            case .route(let from):
                l.kind = Int32(XP_ROUTE)
                sources(from)
            case .maxpool(let size, let step):
                l.kind = Int32(XP_MAXPOOL)
                (l.size, l.step) = (Int32(size), Int32(step))
            case .upsample: l.kind = Int32(XP_UPSAMPLE)
            case .resize: l.kind = Int32(XP_RESIZE)
            case .average: l.kind = Int32(XP_AVERAGE)
            case .softmax: l.kind = Int32(XP_SOFTMAX)
            case .logistic: l.kind = Int32(XP_LOGISTIC)
            case .dropout, .yolo: l.kind = Int32(XP_SAME)
            }
            l.is_output = layer.isOutput ? 1 : 0
            layers.append(l)
        }
        var why = [CChar](repeating: 0, count: 256)
        guard
            let made = xp_create(
                layers, Int32(layers.count), Int32(network.input.channels),
                Darknet.lastUses(network.layers).map(Int32.init), Int32(threads), &why, why.count)
        else { throw Darknet.ReadError(description: Self.text(why)) }
        handle = made
    }

    deinit { xp_destroy(handle) }

    /// The outputs of a run on `input` (shapes as `Darknet.run` gives), or nil when XNNPACK failed.
    func run(_ input: FeatureMap, shapes: [Darknet.Shape], lastUse: [Int], outputs: [Int]) -> [FeatureMap]? {
        let maps = outputs.map { FeatureMap(shapes[$0]) }
        let flat = shapes.flatMap { [Int32($0.channels), Int32($0.height), Int32($0.width)] }
        let uses = lastUse.map(Int32.init)
        var pointers: [UnsafeMutablePointer<Float>?] = maps.map { $0.values }
        let strides = maps.map(\.stride)
        var why = [CChar](repeating: 0, count: 256)
        let ok = xp_run(
            handle, input.values, input.stride, Int32(input.shape.height), Int32(input.shape.width), flat, uses,
            &pointers, strides, &why, why.count)
        return ok == 1 ? maps : nil
    }

    static func text(_ why: [CChar]) -> String {
        String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A network's XNNPACK operators, made on first use for each thread count asked for (nil
/// where XNNPACK cannot make them: the run falls back to catctl's kernels).
final class XNNPACKNetworks: Sendable {
    private let made = LockedValue<[Int: XNNPACKNetwork?]>([:])

    func network(for darknet: Darknet, threads: Int) -> XNNPACKNetwork? {
        made.withLockedValue { made in
            if let known = made[threads] { return known }
            let network = try? XNNPACKNetwork(darknet, threads: threads)
            made[threads] = network
            return network
        }
    }
}
