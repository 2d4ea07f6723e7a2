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
