import Dispatch

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
public final class Pending<Value: Sendable>: Sendable {
    private let result = GuardedValue<Result<Value, any Error>?>(nil)

    public init(_ work: @escaping @Sendable () throws -> Value) {
        detachThread { [result] in
            let outcome = Result { try work() }
            result.withValue { $0 = outcome }
        }
    }

    /// The result if the work is done, else nil.
    public func poll() -> Result<Value, any Error>? { result.withValue { $0 } }

    /// The result, once the work is done.
    public func wait() -> Result<Value, any Error> { result.wait(until: { $0 != nil }, then: { $0! }) }

    /// The work's error, if it is done and failed.
    public var failure: (any Error)? {
        if case let .failure(error)? = poll() { return error }
        return nil
    }
}

/// A value handed to threads that each use only their own part of it (a kernel a worker,
/// a reader on its one decoding thread): the caller vouches for it.
// @unchecked: whoever wraps a value promises no two threads touch the same part at once.
public struct UncheckedSendable<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}

/// `body(i)` for every i of 0..<count, on up to `threads` threads at once (a thread takes
/// every `threads`-th i), the results in order. Each result is written by the one thread
/// that made it and read after all have finished: no result type needs to be Sendable, and
/// no caller keeps its own shared boxes.
public func concurrentMap<T>(_ count: Int, threads: Int, _ body: (Int) -> T) -> [T] {
    guard count > 0 else { return [] }
    let workers = max(1, min(threads, count))
    return withoutActuallyEscaping(body) { body in
        let work = UncheckedSendable(body)
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let out = UncheckedSendable(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                for i in stride(from: worker, to: count, by: workers) { (out.value + i).initialize(to: work.value(i)) }
            }
            initialized = count
        }
    }
}
