// libFuzzer target: the cat detector's network files, read at run time from
// share/catctl/models (CatFaces/Darknet.swift): a darknet .cfg and its .weights. The first
// two bytes give the cfg's length, the next that many bytes are the cfg, the rest the
// weights. Whatever reads must run: at 32 x 32, with the bounds checked at reading, and
// give one map per yolo layer.
import CatFaces

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDarknet(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let cfgLength = min(size - 2, Int(data[0]) << 8 | Int(data[1]))
    let cfg = Array(UnsafeBufferPointer(start: data + 2, count: cfgLength))
    let weights = Array(UnsafeBufferPointer(start: data + 2 + cfgLength, count: size - 2 - cfgLength))
    guard let network = try? Darknet(cfg: cfg, weights: weights) else { return 0 }
    precondition(!network.shapes.isEmpty && network.shapes.allSatisfy { $0.channels > 0 && $0.pixels > 0 })
    let input = Darknet.Shape(channels: network.input.channels, width: 32, height: 32)
    let outputs = network.run(FeatureMap(input), threads: 1)
    for map in outputs { precondition(map.shape.channels > 0 && map.shape.pixels > 0, "an empty yolo map") }
    return 0
}
