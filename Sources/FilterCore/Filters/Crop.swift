import CatImageIO

extension FilterDefinition {
    static let crop = FilterDefinition(
        name: "crop", valueName: "WxH[+X+Y]",
        description: "Cut out W x H pixels at X,Y from the top left (ImageMagick geometry); centred without +X+Y",
        showcase: "100x100",
        presets: { width, height in
            Geometry.fractions.map { "\(Geometry.part(width, $0))x\(Geometry.part(height, $0))" }
        },
        parse: { text throws(FilterError) in
            let r = try Geometry.rectangle(text, filter: "crop")
            return [.spatial(CropStage(width: r.width, height: r.height, x: r.x, y: r.y, spec: "crop:" + text))]
        })
}

/// A rectangle of the image, exactly; centred when no offset is given. Streams: output
/// row y is input row y + top, handed on as a view of the incoming rows (`RectangleStage`).
struct CropStage: RectangleStage {
    let width: Int, height: Int
    /// nil: centred.
    let x: Int?, y: Int?
    /// As given, for messages.
    let spec: String
    /// A preview's crop (`scaled`): kept inside the image it gets, whose rounded size may
    /// be a pixel short of the scaled rectangle. A crop as typed never is: it must fit.
    var fitsImage = false

    func scaled(by factor: Double) -> any SpatialStage {
        CropStage(
            width: Self.scale(width, factor), height: Self.scale(height, factor),
            x: x.map { Int(Double($0) * factor) }, y: y.map { Int(Double($0) * factor) }, spec: spec,
            fitsImage: true)
    }

    /// The rectangle cut from an image of `w` x `h`.
    func box(width w: Int, height h: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        guard fitsImage else { return (x ?? (w - width) / 2, y ?? (h - height) / 2, width, height) }
        let cw = min(width, w), ch = min(height, h)
        let left = min(max(0, x ?? (w - cw) / 2), w - cw), top = min(max(0, y ?? (h - ch) / 2), h - ch)
        return (left, top, cw, ch)
    }

    func origin(width w: Int, height h: Int) -> (x: Int, y: Int) {
        let box = box(width: w, height: h)
        return (box.x, box.y)
    }

    func check(width w: Int, height h: Int) throws(FilterError) {
        if fitsImage { return }
        let (left, top) = origin(width: w, height: h)
        guard width <= w, height <= h, left + width <= w, top + height <= h else {
            let reason =
                width > w || height > h
                ? "it is larger than the image"
                : "it reaches \(left + width)x\(top + height), past the image's edge"
            throw .doesNotFit(spec: spec, width: w, height: h, reason: reason)
        }
    }

    func outputSize(width w: Int, height h: Int) -> (width: Int, height: Int) {
        let box = box(width: w, height: h)
        return (box.width, box.height)
    }

    func inputRows(forOutput rows: Range<Int>, width w: Int, height h: Int) -> Range<Int> {
        let top = origin(width: w, height: h).y
        return rows.lowerBound + top..<rows.upperBound + top
    }

    func makeKernel(width w: Int, height h: Int) throws(ImageIOError) -> any SpatialKernel {
        let box = box(width: w, height: h)
        return CropKernel(left: box.x, top: box.y, width: box.width)
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(ImageIOError) {
        let (left, top) = origin(width: src.width, height: src.height)
        Geometry.move(from: src, into: dst) { x, y in (x + left, y + top) }
    }
}

final class CropKernel: SpatialKernel {
    let left: Int, top: Int, width: Int

    init(left: Int, top: Int, width: Int) {
        self.left = left
        self.top = top
        self.width = width
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(ImageIOError) {
        for y in rows {
            destination.row(y - destinationRow).update(
                from: source.row(y + top - sourceRow) + 4 * left, count: 4 * width)
        }
    }
}
