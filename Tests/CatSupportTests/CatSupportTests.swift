import CatSupport
import Testing

/// The few pieces of full Foundation that catctl uses and FoundationEssentials lacks.
@Suite("CatSupport")
struct CatSupportTests {
    @Test func printfFormatsNumbers() {
        #expect(String(printf: "%.1f MP", 12.345) == "12.3 MP")
        #expect(String(printf: "%02X %06x", 10, 0xABCDEF) == "0A abcdef")
        #expect(String(printf: "%.0f%%", 99.5) == "100%")
        // Longer than the first buffer: formatted again into one that fits.
        let long = String(printf: "%0200d", 7)
        #expect(long.count == 200 && long.hasSuffix("7") && long.hasPrefix("000"))
    }

    @Test func whitespaceAndPadding() {
        #expect(" \t sepia:50 \n".trimmingWhitespace() == "sepia:50")
        #expect("   ".trimmingWhitespace() == "" && "".trimmingWhitespace() == "")
        #expect("a b"[...].trimmingWhitespace() == "a b")
        #expect("ab".padded(to: 4) == "ab  " && "abcde".padded(to: 2) == "abcde")
    }

    @Test func threadsLocksAndConditions() {
        let lock = Lock()
        let condition = Condition()
        final class Box: @unchecked Sendable { var count = 0, finished = 0 }
        let box = Box()
        for _ in 0..<4 {
            detachThread {
                for _ in 0..<10_000 { lock.withLock { box.count += 1 } }
                condition.lock()
                box.finished += 1
                condition.broadcast()
                condition.unlock()
            }
        }
        condition.lock()
        while box.finished < 4 { condition.wait() }
        condition.unlock()
        #expect(lock.withLock { box.count } == 40_000)
    }

    @Test func folders() {
        #expect(isDirectory(atPath: "/") && !isDirectory(atPath: "/dev/null"))
        #expect(!isDirectory(atPath: "/no/such/folder"))
    }
}
