/// The process's resident memory now, in bytes: Linux's `/proc/self/statm` (nil where there
/// is none). `bench --live --play` samples it while an animation plays.
public enum ResidentMemory {
    public static var bytes: Int? {
        guard let data = FileManager.default.contents(atPath: "/proc/self/statm"), data.count < 4096 else { return nil }
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(getpagesize())
    }
}
