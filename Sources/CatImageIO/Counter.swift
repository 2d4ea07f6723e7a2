import CatSupport

/// Hands out work items to threads: 0, 1, 2, ...
package final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var value = 0
    package init() {}
    /// Returns the current value and adds one.
    package func increment() -> Int {
        lock.withLock {
            defer { value += 1 }; return value
        }
    }
}
