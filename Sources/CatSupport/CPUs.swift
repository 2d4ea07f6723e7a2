/// How many CPUs catctl may keep busy: the cores, or fewer when the cgroup it runs in has a
/// CPU limit (`docker run --cpus`, a Kubernetes limit, Slurm's cgroup plugin). A process that
/// starts a thread a core under a limit of 2 only queues them (sharp #2281). swift-corelibs
/// Foundation reads cgroup v1 only and FoundationEssentials neither, so it is read here:
/// cgroup v2's `cpu.max`, else v1's `cpu.cfs_quota_us` over `cpu.cfs_period_us`, in the
/// process's own cgroup and every one above it (a limit set on a parent holds too).
public enum CPUs {
    /// The default for every thread count and `batch --jobs`.
    public static let available: Int = {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return min(cores, limit(cgroups: read("/proc/self/cgroup") ?? "", read: read) ?? cores)
    }()

    /// The tightest CPU limit of the cgroups `cgroups` (the text of /proc/self/cgroup) names,
    /// rounded up to whole CPUs; nil when there is none. `read` gives a file's text, or nil.
    static func limit(cgroups: String, read: (String) -> String?) -> Int? {
        var limits: [Double] = []
        for line in cgroups.split(separator: "\n") {
            // hierarchy-ID:controllers:path; v2's line is "0::/path".
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ","), path = String(fields[2])
            if fields[0] == "0" && controllers.isEmpty {
                for dir in ancestors("/sys/fs/cgroup", path) {
                    // "max 100000" (none) or "200000 100000" (2 CPUs).
                    let parts = read(dir + "/cpu.max")?.split(whereSeparator: \.isWhitespace) ?? []
                    if parts.count == 2, let quota = Double(parts[0]), let period = Double(parts[1]), period > 0 {
                        limits.append(quota / period)
                    }
                }
            } else if controllers.contains("cpu") {
                for mount in ["/sys/fs/cgroup/" + controllers.joined(separator: ","), "/sys/fs/cgroup/cpu"] {
                    for dir in ancestors(mount, path) {
                        guard let quota = read(dir + "/cpu.cfs_quota_us").flatMap({ Double(trimmed($0)) }),
                            let period = read(dir + "/cpu.cfs_period_us").flatMap({ Double(trimmed($0)) }),
                            quota > 0, period > 0
                        else { continue }
                        limits.append(quota / period)
                    }
                }
            }
        }
        return limits.min().map { max(1, Int($0.rounded(.up))) }
    }

    /// `root` + `path`, then each folder above it, up to `root`.
    static func ancestors(_ root: String, _ path: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init), dirs: [String] = []
        while true {
            dirs.append(([root] + parts).joined(separator: "/"))
            if parts.isEmpty { return dirs }
            parts.removeLast()
        }
    }

    private static func trimmed(_ text: String) -> String { text.filter { !$0.isWhitespace } }

    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 4096 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
