/// Runs `body` on a thread of its own (pthread, detached), for work that blocks for long:
/// a decoder feeding a pipeline, a libcurl transfer. FoundationEssentials has no Thread.
public func detachThread(_ body: @escaping @Sendable () -> Void) {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let argument = Unmanaged.passRetained(Body(body)).toOpaque()
    let start: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
        Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
        return nil
    }
    #if canImport(Glibc)
        var thread = pthread_t()
    #else
        var thread: pthread_t?
    #endif
    let status = pthread_create(&thread, nil, start, argument)
    precondition(status == 0, "pthread_create: \(status)")
    #if canImport(Glibc)
        pthread_detach(thread)
    #else
        pthread_detach(thread!)
    #endif
}

/// Work started on a thread of its own (`detachThread`) whose result is asked for later:
/// at once when it is there (`poll`), or waited for (`wait`). Used to place a crop from a
/// small copy of the picture while the full image already streams.
// @unchecked: `result` is read and written under `condition` only.
public final class Pending<Value>: @unchecked Sendable {
    private let condition = Condition()
    private var result: Result<Value, any Error>?

    public init(_ work: @escaping @Sendable () throws -> Value) {
        detachThread { [self] in
            let outcome = Result { try work() }
            condition.lock()
            result = outcome
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The result if the work is done, else nil.
    public func poll() -> Result<Value, any Error>? {
        condition.lock()
        defer { condition.unlock() }
        return result
    }

    /// The result, once the work is done.
    public func wait() -> Result<Value, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }

    /// The work's error, if it is done and failed.
    public var failure: (any Error)? {
        if case let .failure(error)? = poll() { return error }
        return nil
    }
}
