/// A mutex (pthread), for state that several threads share. FoundationEssentials has no
/// NSLock, and Synchronization's Mutex needs macOS 15.
// @unchecked: a pthread mutex: made to be shared; it guards, nothing else is stored.
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
// @unchecked: a pthread mutex and condition variable: made to be shared.
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

/// A value behind a lock (swift-nio's `NIOLockedValueBox` is the model): it is reached only
/// through `withLockedValue`, so no thread can touch it without the lock. Sendable when
/// its value is, as NIO's: a value of a class that is not can still escape the lock.
public final class LockedValue<Value> {
    private let lock = Lock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, the lock held.
    public func withLockedValue<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value now.
    public var current: Value { withLockedValue { $0 } }
}

// @unchecked: `value` is read and written under `lock` only, and it is itself Sendable.
extension LockedValue: @unchecked Sendable where Value: Sendable {}

/// A value behind a lock and a condition: `withValue` changes it and wakes whoever waits,
/// `wait(until:then:)` sleeps until the value is ready. The hand-offs between threads (the
/// streaming pipeline's strips, a pending result) are made of these, so none of them needs
/// its own unchecked lock discipline.
public final class GuardedValue<Value> {
    private let condition = Condition()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, the lock held, then wakes the waiters.
    public func withValue<T>(_ body: (inout Value) -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body(&value)
    }

    /// Waits until `ready` holds, then runs `body` with the value, the lock held (and wakes
    /// the other waiters).
    public func wait<T>(until ready: (Value) -> Bool, then body: (inout Value) -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(value) { condition.wait() }
        return body(&value)
    }
}

// @unchecked: `value` is read and written under `condition` only, and it is itself Sendable.
extension GuardedValue: @unchecked Sendable where Value: Sendable {}

extension LockedValue where Value == Int {
    /// The value, then one more: work items 0, 1, 2, ... handed to threads.
    public func next() -> Int {
        withLockedValue { value in
            defer { value += 1 }
            return value
        }
    }
}

extension LockedValue where Value == (any Error)? {
    /// Keeps the first error any thread of a parallel pass met.
    public func recordFirst(_ error: any Error) { withLockedValue { if $0 == nil { $0 = error } } }
}
