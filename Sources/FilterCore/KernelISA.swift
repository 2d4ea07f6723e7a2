internal import CKernelDispatch

/// Which build of the C kernels runs: the best the CPU has, or a lower one on request.
public enum KernelISA: Int32, Sendable, CaseIterable {
    case baseline = 0
    case sse41 = 1
    case avx2 = 2
    case avx512 = 3

    public static var best: KernelISA { KernelISA(rawValue: ck_isa_best()) ?? .baseline }
    public static var active: KernelISA { KernelISA(rawValue: ck_isa_active()) ?? .baseline }

    /// Switches every later kernel call to `isa` (or the best below it the CPU has).
    @discardableResult
    public static func select(_ isa: KernelISA) -> KernelISA {
        KernelISA(rawValue: ck_isa_select(isa.rawValue)) ?? .baseline
    }

    /// The builds this CPU can run, best first.
    public static var available: [KernelISA] { allCases.filter { $0.rawValue <= best.rawValue }.reversed() }

    public var name: String { String(cString: ck_isa_name(rawValue)) }
}
