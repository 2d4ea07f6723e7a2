internal import CFilterKernels
import CatPixels
import CatSupport

/// Decode → filter → encode a strip of rows at a time, the decoder on a thread of its
/// own and the filters and the encoder on the caller's, so a photo never sits whole in
/// memory and decoding overlaps encoding. The chain runs as a line of strip stages, one per
/// spatial stage (each with the colour stages after it; the first also with those before
/// it): a stage with no halo (vignette) works on each strip in place, the others on a
/// sliding window of their input rows (a blur's halo above and below, a resize's taps, a
/// crop's band) and hand their output rows on to the next stage, the last to the encoder.
/// The bytes are the same as the whole-image path's.
public enum StreamingPipeline {
    public static let stripRows = 32

    /// The pixels a decoder's strip holds at least, when the picture has the rows.
    static let stripPixels = 1 << 17
    /// The most pixels a strip holds when its picture is wide (4 MiB of RGBA), but at least
    /// a row: a 10,000,000 x 10 PNG of 30 KB held 2.6 GB under sepia in strips of all its
    /// rows, 4.5 GB under a blur.
    public static let stripCap = 1 << 20

    /// `rows` rows, fewer when they would hold more than `cap` pixels of a picture `width`
    /// wide (at least one), never more than its `height`.
    public static func strip(_ rows: Int, width: Int, height: Int, cap: Int = stripCap) -> Int {
        max(1, min(rows, height, cap / max(1, width)))
    }

    /// The rows of the decoder's strips for a picture of `width` x `height`: `stripRows`, or
    /// more for a narrow picture so a strip holds `stripPixels` (a 1 x 10,000,000 PNG went
    /// in 312,500 strips of 32 pixels, each handed between threads: 5.9 s, now 0.4 s), fewer
    /// for a wide one (`strip`).
    static func inputStrip(width: Int, height: Int) -> Int {
        strip(max(stripRows, stripPixels / max(1, width)), width: width, height: height)
    }
    /// Strips in flight between the decoder and the encoder.
    static let depth = 3

    /// Colour stages before the first spatial one, then each spatial stage with the colour
    /// stages after it.
    struct Plan {
        var before: [Float] = []
        var steps: [(spatial: any SpatialStage, after: [Float])] = []
    }

    /// nil when the chain cannot stream: a stage that needs rows from the far end first
    /// (flip, rotate).
    static func plan(_ chain: FilterChain) -> Plan? {
        var plan = Plan()
        for stage in chain.stages {
            switch stage {
            case let .color(matrix):
                if plan.steps.isEmpty {
                    plan.before += matrix.kernelCoefficients
                } else {
                    plan.steps[plan.steps.count - 1].after += matrix.kernelCoefficients
                }
            case let .spatial(spatial):
                if spatial.isIdentity { continue }  // as in the whole-image path
                guard spatial.streams else { return nil }
                plan.steps.append((spatial, []))
            }
        }
        return plan
    }

    /// Whether the chain streams (no stage needs rows from the far end first); the source
    /// must stream as well.
    public static func canStream(_ chain: FilterChain) -> Bool { plan(chain) != nil }

    /// Rows from `source`, through `chain`, into `sink`, which has the chain's output size
    /// (`FilterChain.outputSize`). `progress`: the fraction of rows written so far, after each
    /// strip. With `placing`, the rows wait at the first crop or caption that reads the
    /// picture until `placing.pending` has placed it (`Deferred`); `chain` is `placing.chain`.
    /// Throws what the source or the sink throws, as it is, or a `FilterError`.
    public static func run(
        source: any RowSource, sink: any RowSink, chain: FilterChain, placing: Placing? = nil,
        progress: (Double) -> Void = { _ in }
    ) throws {
        guard let plan = plan(chain) else { preconditionFailure("canStream first") }
        let channel = StripChannel()
        var free: [PixelBuffer] = []
        let rows = inputStrip(width: source.width, height: source.height)
        for _ in 0..<depth {
            let strip = try FilterError.allocating { () throws(PixelError) in
                try PixelBuffer(width: source.width, height: rows, hasAlpha: source.hasAlpha)
            }
            strip.base.initialize(repeating: 0, count: strip.byteCount)
            free.append(strip)
        }
        let spare = StripPool(free)
        let reader = UncheckedSendable(source)
        detachThread {
            var row = 0
            while row < reader.value.height {
                guard let strip = spare.take() else { return }  // the consumer gave up
                let count = min(rows, reader.value.height - row)
                do {
                    try reader.value.readRows(into: strip, at: 0, count: count)
                } catch {
                    channel.send(.failed(error))
                    return
                }
                row += count
                channel.send(.strip(strip, count))
            }
            channel.send(.end)
        }
        defer { spare.close() }

        let (first, deferred) = try Stage.line(
            plan, width: reader.value.width, height: reader.value.height, hasAlpha: reader.value.hasAlpha,
            sink: sink, placing: placing)
        while true {
            switch channel.receive() {
            case let .strip(strip, count):
                try first.put(strip, rows: count)
                spare.give(strip)
                progress(Double(sink.rowsWritten) / Double(sink.height))
            case let .failed(error):
                throw error
            case .end:
                try deferred?.finish()
                try sink.finish()
                return
            }
        }
    }

    /// Where a stage's rows go: the next stage, or the sink.
    protocol StripSink: AnyObject {
        /// Rows 0..<rows of `strip`, the next ones top to bottom.
        func put(_ strip: PixelBuffer, rows: Int) throws
    }

    /// The sink (the encoder) as the end of the line.
    final class LastStage: StripSink {
        let sink: any RowSink
        init(_ sink: any RowSink) { self.sink = sink }
        func put(_ strip: PixelBuffer, rows: Int) throws { try sink.write(strip, rows: 0..<rows) }
    }

    /// A chain whose crops and captions that read the picture are being placed on another
    /// thread (`FilterChain.resolvingGravity` on a small copy): `pending` gives `chain`
    /// resolved (or one with the same stages, before a shrink-on-load).
    public struct Placing {
        public let chain: FilterChain
        public let pending: Pending<FilterChain>
        /// What the rows kept while the place is found may take (at least one strip's rows
        /// are): past it the decoder waits. The finder spends its own memory meanwhile (the
        /// cat detector's maps, some 25 MB), and a 12 MP `caption:` kept the whole picture's
        /// rows, 48 MB, when decoding outran it (100 MB at its peak, now 53 MB; the time the
        /// same, 0.16 s against 0.19 s).
        public var keptBytes: Int

        public init(chain: FilterChain, pending: Pending<FilterChain>, keptBytes: Int = 4 << 20) {
            (self.chain, self.pending, self.keptBytes) = (chain, pending, keptBytes)
        }
    }

    /// The first stage that reads the picture, until it is placed: the rows that come
    /// before then are kept (in memory, at most `keptBytes` of them), then go on through the
    /// placed stages (`make`), and every later row goes straight through. Decoding and the
    /// stages before go on meanwhile, on the other cores, until that many rows are kept;
    /// then they wait for the place.
    final class Deferred: StripSink {
        let pending: Pending<FilterChain>
        let width: Int, height: Int, strip: Int, hasAlpha: Bool, keptBytes: Int
        let make: (FilterChain) throws(FilterError) -> any StripSink
        private var target: (any StripSink)?
        private var kept: PixelBuffer?
        private var keptRows = 0

        init(
            pending: Pending<FilterChain>, width: Int, height: Int, strip: Int, hasAlpha: Bool, keptBytes: Int,
            make: @escaping (FilterChain) throws(FilterError) -> any StripSink
        ) {
            (self.pending, self.width, self.height, self.strip, self.hasAlpha, self.keptBytes, self.make) =
                (pending, width, height, strip, hasAlpha, keptBytes, make)
        }

        /// The most rows kept: those of `keptBytes`, at least one strip.
        var keptLimit: Int { min(height, max(strip, keptBytes / max(1, width * 4))) }

        func put(_ strip: PixelBuffer, rows count: Int) throws {
            if target == nil, let result = pending.poll() { try start(result) }
            // Past the rows it may keep, the line waits for the place (the decoder with it).
            if target == nil, keptRows + count > keptLimit { try start(pending.wait()) }
            if let target { return try target.put(strip, rows: count) }
            if kept == nil {
                kept = try FilterError.allocating { () throws(PixelError) in
                    try PixelBuffer(width: width, height: keptLimit, hasAlpha: hasAlpha)
                }
            }
            guard let kept, keptRows + count <= kept.height else { preconditionFailure("no more rows than kept") }
            for y in 0..<count { kept.row(keptRows + y).update(from: strip.row(y), count: width * 4) }
            keptRows += count
        }

        /// Every row is in: waits for the placed chain if it is not there yet.
        func finish() throws {
            if target == nil { try start(pending.wait()) }
        }

        /// The placed stages take the kept rows, a strip at a time.
        private func start(_ result: Result<FilterChain, any Error>) throws {
            let target = try make(result.get())
            self.target = target
            if let kept {
                for top in stride(from: 0, to: keptRows, by: strip) {
                    let view = PixelBuffer(
                        viewing: kept, x: 0, y: top, width: width, height: min(strip, keptRows - top))
                    try target.put(view, rows: view.height)
                }
            }
            kept = nil
        }
    }

    /// Colour stages, then a spatial stage (or none), then colour stages, strip by strip.
    final class Stage: StripSink {
        let before: [Float], spatial: (any SpatialStage)?, after: [Float]
        let next: any StripSink
        let width: Int, height: Int
        /// The size it hands on.
        let outputWidth: Int, outputHeight: Int
        private var row = 0
        private let kernel: (any SpatialKernel)?
        /// A rectangle stage's rectangle: rows are handed on as views, no kernel runs.
        private let rectangle: (x: Int, y: Int, width: Int, height: Int)?
        // A stage that does not work in place: the window of input rows
        // [windowStart, windowEnd), the next output row to write.
        private var window: PixelBuffer?
        private var windowStart = 0, windowEnd = 0, nextOutput = 0
        private var output: PixelBuffer?
        private var outputRows = 0

        /// The stages of `plan` for an input of `width` x `height`, each feeding the next,
        /// the last `sink`; returns the first. With `placing`, the first stage that reads
        /// the picture (a crop's gravity, a caption's side) and the ones after it are made
        /// once the chain it resolves is there: rows wait for it in a `Deferred`.
        static func line(
            _ plan: Plan, width: Int, height: Int, hasAlpha: Bool, sink: any RowSink, placing: Placing? = nil
        ) throws(FilterError) -> (first: any StripSink, deferred: Deferred?) {
            // Each stage's input is the one before's output: its size, and the most rows it
            // hands on at once.
            var inputs = [(width: width, height: height, strip: inputStrip(width: width, height: height))]
            for step in plan.steps {
                let input = inputs.last!, spatial = step.spatial
                let size = spatial.outputSize(width: input.width, height: input.height)
                let passesRows = spatial.inPlace || spatial is any RectangleStage
                let strip = passesRows ? input.strip : outputStrip(spatial, width: size.width, height: size.height)
                inputs.append((size.width, size.height, strip))
            }
            // Steps `range`, built from the last back; a chain of colour stages alone is one
            // stage.
            func stages(_ plan: Plan, _ range: Range<Int>, next last: any StripSink) throws(FilterError)
                -> any StripSink
            {
                var next = last
                for i in range.reversed() {
                    let step = plan.steps[i]
                    next = try Stage(
                        before: i == 0 ? plan.before : [], spatial: step.spatial, after: step.after,
                        width: inputs[i].width, height: inputs[i].height, strip: inputs[i].strip, hasAlpha: hasAlpha,
                        next: next)
                }
                if plan.steps.isEmpty {
                    return try Stage(
                        before: plan.before, spatial: nil, after: [], width: width, height: height,
                        strip: inputStrip(width: width, height: height),
                        hasAlpha: hasAlpha, next: next)
                }
                return next
            }
            let writerSink = LastStage(sink)
            guard let placing, let k = plan.steps.firstIndex(where: { FilterChain.readsPicture($0.spatial) }) else {
                return (try stages(plan, 0..<plan.steps.count, next: writerSink), nil)
            }
            let deferred = Deferred(
                pending: placing.pending, width: inputs[k].width, height: inputs[k].height, strip: inputs[k].strip,
                hasAlpha: hasAlpha, keptBytes: placing.keptBytes
            ) { (resolved: FilterChain) throws(FilterError) -> any StripSink in
                guard let placed = StreamingPipeline.plan(placing.chain.placing(from: resolved)),
                    placed.steps.count == plan.steps.count
                else { preconditionFailure("a placed crop or caption streams as the unplaced one") }
                return try stages(placed, k..<placed.steps.count, next: writerSink)
            }
            return (k == 0 ? deferred : try stages(plan, 0..<k, next: deferred), deferred)
        }

        /// Output strips of at least 4 halos (each recomputes 2 halos of rows at its edges),
        /// unless they would hold more than 16 Mpx (a picture millions of pixels wide: `strip`;
        /// a photo's strips are as they were, `blur:50`'s 600 rows too).
        static func outputStrip(_ spatial: any SpatialStage, width: Int, height: Int) -> Int {
            strip(max(stripRows, 4 * spatial.halo), width: width, height: height, cap: 16 << 20)
        }

        /// `strip`: the most rows one `put` brings.
        init(
            before: [Float], spatial: (any SpatialStage)?, after: [Float], width: Int, height: Int, strip: Int,
            hasAlpha: Bool, next: any StripSink
        ) throws(FilterError) {
            (self.before, self.spatial, self.after, self.next) = (before, spatial, after, next)
            self.width = width
            self.height = height
            (outputWidth, outputHeight) = spatial?.outputSize(width: width, height: height) ?? (width, height)
            rectangle = (spatial as? any RectangleStage)?.box(width: width, height: height)
            kernel = rectangle == nil ? try spatial?.makeKernel(width: width, height: height) : nil
            if let spatial, !spatial.inPlace, rectangle == nil {
                outputRows = Self.outputStrip(spatial, width: outputWidth, height: outputHeight)
                var needed = 0
                for y in stride(from: 0, to: outputHeight, by: outputRows) {
                    let rows = y..<min(outputHeight, y + outputRows)
                    needed = max(needed, spatial.inputRows(forOutput: rows, width: width, height: height).count)
                }
                // Room for what one output strip needs and one strip coming in: before a strip is
                // added, rows no output needs any more are dropped, which leaves fewer than `needed`.
                (window, output) = try FilterError.allocating { () throws(PixelError) in
                    (
                        try PixelBuffer(width: width, height: needed + strip, hasAlpha: hasAlpha),
                        try PixelBuffer(width: outputWidth, height: outputRows, hasAlpha: hasAlpha)
                    )
                }
            }
        }

        /// The next `rows` input rows, in `strip`.
        func put(_ strip: PixelBuffer, rows: Int) throws {
            Self.color(before, strip, rows: rows)
            defer { row += rows }
            if let rectangle {
                let top = max(row, rectangle.y), bottom = min(row + rows, rectangle.y + rectangle.height)
                guard top < bottom else { return }
                let view = PixelBuffer(
                    viewing: strip, x: rectangle.x, y: top - row, width: rectangle.width, height: bottom - top)
                Self.color(after, view, rows: view.height)
                try next.put(view, rows: view.height)
                return
            }
            if let kernel, let spatial {
                if !spatial.inPlace {
                    try slide(strip, rows: rows, spatial: spatial, kernel: kernel)
                    return
                }
                try kernel.run(row..<row + rows, from: strip, firstRow: row, into: strip, firstRow: row)
            }
            Self.color(after, strip, rows: rows)
            try next.put(strip, rows: rows)
        }

        /// Adds rows to the window, then hands on every output strip whose input rows are in.
        private func slide(
            _ strip: PixelBuffer, rows: Int, spatial: any SpatialStage, kernel: any SpatialKernel
        ) throws {
            guard let window, let output, nextOutput < outputHeight else { return }  // past the last output row
            if windowEnd - windowStart + rows > window.height {  // drop rows no output needs any more
                let needed = spatial.inputRows(forOutput: nextOutput..<nextOutput + 1, width: width, height: height)
                let keepFrom = min(windowEnd, max(windowStart, needed.lowerBound))
                for y in keepFrom..<windowEnd {
                    window.row(y - keepFrom).update(from: window.row(y - windowStart), count: width * 4)
                }
                windowStart = keepFrom
            }
            precondition(windowEnd - windowStart + rows <= window.height, "the window holds every row an output needs")
            for y in 0..<rows {
                window.row(windowEnd - windowStart + y).update(from: strip.row(y), count: width * 4)
            }
            windowEnd += rows
            while nextOutput < outputHeight {
                let n = min(outputRows, outputHeight - nextOutput)
                let needed = spatial.inputRows(forOutput: nextOutput..<nextOutput + n, width: width, height: height)
                guard windowEnd >= needed.upperBound else { return }
                try kernel.run(
                    nextOutput..<nextOutput + n, from: window, firstRow: windowStart, into: output,
                    firstRow: nextOutput)
                Self.color(after, output, rows: n)
                try next.put(output, rows: n)
                nextOutput += n
            }
        }

        static func color(_ coefficients: [Float], _ buffer: PixelBuffer, rows: Int) {
            guard !coefficients.isEmpty else { return }
            coefficients.withUnsafeBufferPointer { c in
                ck_color_chain(
                    buffer.base, buffer.stride, buffer.base, buffer.stride, buffer.width, rows, c.baseAddress,
                    Int32(c.count / Int(CK_STAGE_FLOATS)))
            }
        }
    }
}

/// Decoded strips on their way from the decoder thread to the encoder.
final class StripChannel: Sendable {
    enum Message {
        case strip(PixelBuffer, Int)
        case failed(any Error)
        case end
    }
    private let messages = GuardedValue<[Message]>([])

    func send(_ message: Message) { messages.withValue { $0.append(message) } }

    func receive() -> Message { messages.wait(until: { !$0.isEmpty }, then: { $0.removeFirst() }) }
}

/// Empty strip buffers; closing it makes the decoder stop.
final class StripPool: Sendable {
    private struct State {
        var buffers: [PixelBuffer]
        var closed = false
    }
    private let state: GuardedValue<State>
    init(_ buffers: [PixelBuffer]) { state = GuardedValue(State(buffers: buffers)) }

    /// An empty buffer, waited for; nil once the pool is closed.
    func take() -> PixelBuffer? {
        state.wait(until: { !$0.buffers.isEmpty || $0.closed }, then: { $0.closed ? nil : $0.buffers.removeLast() })
    }

    func give(_ buffer: PixelBuffer) { state.withValue { $0.buffers.append(buffer) } }

    func close() { state.withValue { $0.closed = true } }
}
