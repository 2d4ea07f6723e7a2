import ArgumentParser
import FilterCore
import Foundation
import TerminalUI

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time filters on a synthetic image against a plain copy of it.",
        discussion: """
            For each filter: the fast kernels and the scalar reference, median of several runs, \
            in megapixels per second, next to a copy of the same buffer on the same threads.
            Example: catctl bench --filter sepia --filter blur:3 --threads 1
            """)

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp("A filter spec to time; repeat (default: every filter).", valueName: "spec"))
    var filters: [String] = []

    @Option(help: ArgumentHelp("Image size (default 4032x3024, 12 MP).", valueName: "WxH"))
    var size = "4032x3024"

    @Option(help: "Threads (default: all cores).")
    var threads: Int?

    @Option(help: "Timed runs per filter (the median is reported).")
    var repetitions = 7

    @Option(help: ArgumentHelp("Kernel build (default: the best the CPU has).", valueName: "isa"))
    var kernels: KernelISA?

    @Flag(name: .customLong("no-scalar"), help: "Skip the scalar reference (it is slow).")
    var noScalar = false

    @Flag(help: "One JSON line on stdout.")
    var json = false

    func validate() throws {
        guard parsedSize != nil else { throw ValidationError("--size must be WxH, e.g. 4032x3024") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
    }

    var parsedSize: (Int, Int)? {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        let (pixels, overflow) = parts[0].multipliedReportingOverflow(by: parts[1])
        guard !overflow, pixels <= 400_000_000 else { return nil }
        return (parts[0], parts[1])
    }

    func run() throws {
        let console = Console.standard()
        let (width, height) = parsedSize!
        if let kernels { KernelISA.select(kernels) }
        let specs = filters.isEmpty ? FilterRegistry.defaultSpecs(width: width, height: height) : filters
        let report: FilterBenchmarkReport
        do {
            report = try FilterBenchmark.run(
                specs: specs, width: width, height: height,
                threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
                repetitions: repetitions, includeScalar: !noScalar,
                progress: { step in
                    if console.stderrIsTerminal { console.stderr.write("\r\u{1B}[2Ktiming \(step)…") }
                })
        } catch {
            if console.stderrIsTerminal { console.stderr.write("\r\u{1B}[2K") }
            throw ValidationError("\(error)")
        }
        if console.stderrIsTerminal { console.stderr.write("\r\u{1B}[2K") }
        console.stdout.write(json ? BenchListing.json(report).encoded + "\n" : BenchListing.table(report))
    }
}
