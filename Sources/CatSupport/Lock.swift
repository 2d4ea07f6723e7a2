/// A mutex (pthread), for state that several threads share. FoundationEssentials has no
/// NSLock, and Synchronization's Mutex needs macOS 15.
public final class Lock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() {
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A lock with a condition to wait on (pthread), as NSCondition.
public final class Condition: @unchecked Sendable {
    private let mutex = Lock()
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        let status = pthread_cond_init(condition, nil)
        precondition(status == 0, "pthread_cond_init: \(status)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    public func lock() { mutex.lock() }
    public func unlock() { mutex.unlock() }
    /// Waits for a signal; call with the lock held, and check the state again after.
    public func wait() { pthread_cond_wait(condition, mutex.mutex) }
    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// Values set from several threads at once, by index.
public final class LockedArray<Element>: @unchecked Sendable {
    private let lock = Lock()
    private var storage: [Element?]
    public init(count: Int) { storage = Array(repeating: nil, count: count) }
    public subscript(i: Int) -> Element? {
        get { lock.withLock { storage[i] } }
        set { lock.withLock { storage[i] = newValue } }
    }
    public var values: [Element?] { lock.withLock { storage } }
}
