// libFuzzer target: the cat detector's, the classifier's and the mask's network files, read
// at run time from share/catctl/models (CatModels/Darknet.swift): a darknet .cfg and its
// .weights (in darknet's float32 or catctl's int8 and float16). The first two bytes give the
// cfg's length, the next that many bytes are the cfg, the rest the weights. Whatever reads
// must run as the detector runs it, at the real sizes (both passes, 480 x 320 and 32 x 480
// for a wide and a tall picture) within the bounds checked at reading, and give boxes inside
// the picture; as the second look runs it (224 x 224), giving a probability in 0-1; and as
// the mask runs it (320 x 320), by catctl's kernels and by XNNPACK where it loads, giving
// a mask of the picture's size whose cats are inside it.
import CatImageIO
import CatModels
import CatPixels

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDarknet(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let cfgLength = min(size - 2, Int(data[0]) << 8 | Int(data[1]))
    let cfg = Array(UnsafeBufferPointer(start: data + 2, count: cfgLength))
    let weights = Array(UnsafeBufferPointer(start: data + 2 + cfgLength, count: size - 2 - cfgLength))
    guard let network = try? Darknet(cfg: cfg, weights: weights) else { return 0 }
    precondition(!network.shapes.isEmpty && network.shapes.allSatisfy { $0.channels > 0 && $0.pixels > 0 })
    guard network.input.channels == 3 else { return 0 }  // the detector refuses it at reading
    for (width, height) in [(48, 32), (2, 30)] {
        guard let picture = try? PixelBuffer(width: width, height: height) else { return 0 }
        picture.fill(r: data[size - 1], g: 90, b: 200)
        for cat in CatDetector.cats(in: picture, using: network) {
            precondition(
                cat.x >= 0 && cat.y >= 0 && cat.width >= 1 && cat.height >= 1 && cat.x + cat.width <= width
                    && cat.y + cat.height <= height && cat.score >= 0 && cat.score <= 1, "a box outside the picture")
        }
        // A mask network's (its one output a logistic, last): a mask over the picture.
        if network.endsInItsOneLogistic {
            for runtime in [NetworkRuntime.own, .xnnpack] {
                let mask = CatSegmenter.mask(
                    [ScoredRegion(x: 0, y: 0, width: width, height: height, score: 1)], in: picture, threads: 1,
                    network: network, runtime: runtime)
                precondition(mask.values.count == width * height && mask.cats.count == 1)
                if let r = mask.cats[0] {
                    precondition(
                        r.x >= 0 && r.y >= 0 && r.x + r.width <= width && r.y + r.height <= height
                            && r.pixels <= r.width * r.height, "a mask outside the picture")
                }
            }
        }
        // A classifier's (its one output a softmax, last): a sum of probabilities.
        guard network.endsInItsOneSoftmax else { continue }
        let box = (x: 0.0, y: 0.0, width: Double(width), height: Double(height))
        let score = CatClassifier.domesticScore(CatClassifier.input(picture, around: box), network: network, threads: 1)
        precondition(score.map { $0 >= 0 && $0 <= 1.0001 } ?? true, "a probability outside 0-1")
    }
    return 0
}
