/// Where rows come from, top to bottom: a decoder that streams (`ImageReader`), or
/// anything else that yields a picture a strip at a time. The filter core's streaming
/// pipeline pulls from one and knows no codec.
public protocol RowSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var hasAlpha: Bool { get }
    /// The next `count` rows, into rows `at..<at + count` of `buffer` (as wide as the source).
    /// What it throws, the pipeline throws as it is.
    func readRows(into buffer: PixelBuffer, at row: Int, count: Int) throws
}

/// Where rows go, top to bottom: an encoder that streams (`ImageWriter`), or anything
/// else that takes a picture a strip at a time.
public protocol RowSink: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Rows taken so far.
    var rowsWritten: Int { get }
    /// Rows `rows` of `strip` (as wide as the sink), the next ones top to bottom.
    func write(_ strip: PixelBuffer, rows: Range<Int>) throws
    /// Ends the picture; every row must have been written.
    func finish() throws
}
