import Testing

@testable import CatSupport

/// The CPU limit of the process's cgroup, read from a fake /proc and /sys.
@Suite("CPUs: the cgroup's CPU limit")
struct CPUsTests {
    func limit(_ cgroups: String, _ files: [String: String]) -> Int? {
        CPUs.limit(cgroups: cgroups, read: { files[$0] })
    }

    @Test func cgroupV2ReadsCpuMaxHereAndAbove() {
        let v2 = "0::/kubepods/pod1/ctr\n"
        #expect(limit(v2, ["/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max": "200000 100000\n"]) == 2)
        #expect(limit(v2, ["/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max": "max 100000\n"]) == nil)
        // A limit on a parent holds; fractions round up; the tightest wins.
        #expect(
            limit(
                v2,
                [
                    "/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max": "max 100000",
                    "/sys/fs/cgroup/kubepods/pod1/cpu.max": "150000 100000",
                    "/sys/fs/cgroup/kubepods/cpu.max": "400000 100000",
                ]) == 2)
        #expect(limit(v2, ["/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max": "10000 100000"]) == 1)
        #expect(limit(v2, [:]) == nil)
    }

    @Test func cgroupV1ReadsQuotaOverPeriod() {
        let v1 = "12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n"
        let dir = "/sys/fs/cgroup/cpu,cpuacct/docker/abc"
        #expect(limit(v1, [dir + "/cpu.cfs_quota_us": "300000\n", dir + "/cpu.cfs_period_us": "100000\n"]) == 3)
        #expect(limit(v1, [dir + "/cpu.cfs_quota_us": "-1\n", dir + "/cpu.cfs_period_us": "100000\n"]) == nil)
        // Inside the container its own cgroup is the mount's root.
        #expect(
            limit(
                v1,
                [
                    "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "250000",
                    "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000",
                ]) == 3)
        #expect(limit("1:cpu:/\n", ["/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1"]) == nil)
    }

    @Test func theDefaultIsAtLeastOneAndAtMostTheCores() {
        #expect(CPUs.available >= 1 && CPUs.available <= ProcessInfo.processInfo.activeProcessorCount)
        #expect(CPUs.ancestors("/r", "/a/b") == ["/r/a/b", "/r/a", "/r"])
    }
}
