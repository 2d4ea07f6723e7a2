import CatPixels

extension FilterDefinition {
    static let crop = FilterDefinition(
        name: "crop", valueName: "WxH[+X+Y|:GRAVITY]",
        description:
            "Cut out W x H pixels at X,Y from the top left (ImageMagick geometry), or where GRAVITY says "
            + "(\(Gravity.names); default centre)",
        showcase: "100x100",
        // The live editor's steps keep the cat in the picture.
        presets: { width, height in
            Geometry.fractions.map { "\(Geometry.part(width, $0))x\(Geometry.part(height, $0)):cat" }
        },
        parse: { text throws(FilterError) in
            let (size, gravity) = try Gravity.split(text, filter: "crop")
            let r = try Geometry.rectangle(size, filter: "crop")
            if gravity != nil, r.x != nil {
                throw .badValue(filter: "crop", value: text, reason: "give an offset or a gravity, not both")
            }
            return [
                .spatial(
                    CropStage(width: r.width, height: r.height, x: r.x, y: r.y, gravity: gravity, spec: "crop:" + text))
            ]
        })
}

/// Where a crop without an offset sits in the image: libvips's and ImageMagick's compass
/// points, or where the picture is most interesting by libvips's two measures
/// (`attention`, `entropy`: `Interest.swift`), which the chain decides from the pixels
/// (`FilterChain.resolvingGravity`).
public enum Gravity: String, CaseIterable, Sendable {
    case centre, north, south, east, west, northeast, northwest, southeast, southwest
    case cat, attention, entropy

    /// The place depends on the picture, not only on its size.
    public var readsPicture: Bool { self == .cat || self == .attention || self == .entropy }

    /// "centre, north, ...", for help and messages.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// `VALUE[:GRAVITY]`: the value and the gravity named after the last colon, if any.
    static func split(_ text: String, filter: String) throws(FilterError) -> (String, Gravity?) {
        guard let colon = text.lastIndex(of: ":") else { return (text, nil) }
        let name = String(text[text.index(after: colon)...])
        guard let gravity = Gravity(rawValue: name.lowercased()) else {
            throw .badValue(filter: filter, value: text, reason: "unknown gravity '\(name)'; use one of \(names)")
        }
        return (String(text[..<colon]), gravity)
    }

    /// The offset of `inner` pixels in `outer` along an axis: 0, the middle, or the far end
    /// (the middle, too, for a gravity that reads the picture and has not been decided).
    func offset(_ outer: Int, _ inner: Int, horizontal: Bool) -> Int {
        let name = rawValue
        let low = horizontal ? name.hasSuffix("west") : name.hasPrefix("north")
        let high = horizontal ? name.hasSuffix("east") : name.hasPrefix("south")
        return low ? 0 : high ? outer - inner : (outer - inner) / 2
    }
}

/// A rectangle of the image, exactly; centred when no offset is given. Streams: output
/// row y is input row y + top, handed on as a view of the incoming rows (`RectangleStage`).
struct CropStage: RectangleStage {
    let width: Int, height: Int
    /// nil: placed by `gravity`.
    let x: Int?, y: Int?
    /// Where the rectangle sits when no offset is given; nil: centred, and not asked for.
    var gravity: Gravity? = nil
    /// As given, for messages.
    let spec: String
    /// A preview's crop (`scaled`): kept inside the image it gets, whose rounded size may
    /// be a pixel short of the scaled rectangle. A crop as typed never is: it must fit.
    var fitsImage = false

    /// Placed by a gravity that reads the picture, not yet decided (`FilterChain.resolvingGravity`).
    var needsPicture: Bool { x == nil && y == nil && gravity?.readsPicture == true }

    /// The same crop at an offset its gravity chose; the gravity stays, so that the place
    /// is reported (`FilterChain.gravityWindow`).
    func placed(x: Int, y: Int) -> CropStage {
        CropStage(width: width, height: height, x: x, y: y, gravity: gravity, spec: spec, fitsImage: fitsImage)
    }

    func scaled(by factor: Double) -> any SpatialStage {
        CropStage(
            width: Self.scale(width, factor), height: Self.scale(height, factor),
            x: x.map { Int(Double($0) * factor) }, y: y.map { Int(Double($0) * factor) }, gravity: gravity, spec: spec,
            fitsImage: true)
    }

    /// The rectangle cut from an image of `w` x `h`.
    func box(width w: Int, height h: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let place = gravity ?? .centre
        guard fitsImage else {
            return (
                x ?? place.offset(w, width, horizontal: true), y ?? place.offset(h, height, horizontal: false), width,
                height
            )
        }
        let cw = min(width, w), ch = min(height, h)
        let left = min(max(0, x ?? place.offset(w, cw, horizontal: true)), w - cw)
        let top = min(max(0, y ?? place.offset(h, ch, horizontal: false)), h - ch)
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

    func makeKernel(width w: Int, height h: Int) throws(FilterError) -> any SpatialKernel {
        let box = box(width: w, height: h)
        return CropKernel(left: box.x, top: box.y, width: box.width)
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
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
    ) throws(FilterError) {
        for y in rows {
            destination.row(y - destinationRow).update(
                from: source.row(y + top - sourceRow) + 4 * left, count: 4 * width)
        }
    }
}
