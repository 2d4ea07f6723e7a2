import CatScenes
import CatSupport

/// `catctl bench` output: a table for people, one JSON line for scripts.
public enum BenchListing {
    public static func table(_ report: BenchSummary) -> String {
        let mp = Double(report.width * report.height) / 1_000_000
        var out =
            "catctl bench: \(report.width)x\(report.height) (\(String(printf: "%.1f", mp)) MP), "
            + "\(report.threads) thread\(report.threads == 1 ? "" : "s"), kernels \(report.kernels), "
            + "median of \(report.repetitions)\n"
        out += "copy (baseline): \(fmt(report.baselineCopyMegapixelsPerSecond)) MPix/s\n\n"
        let header = ["FILTER", "MPIX/S", "SCALAR MPIX/S", "VS SCALAR", "VS COPY"]
        let rows = report.results.map { r -> [String] in
            [
                ForeignText.visible(r.filter), fmt(r.megapixelsPerSecond), r.scalarMegapixelsPerSecond.map(fmt) ?? "-",
                r.scalarMegapixelsPerSecond.map { String(printf: "%.1fx", r.megapixelsPerSecond / $0) } ?? "-",
                String(printf: "%.0f%%", 100 * r.megapixelsPerSecond / report.baselineCopyMegapixelsPerSecond),
            ]
        }
        let widths = header.indices.map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        for row in [header] + rows {
            out +=
                row.indices.map { c in
                    c == 0
                        ? row[c].padded(to: widths[c])
                        : String(repeating: " ", count: widths[c] - row[c].count) + row[c]
                }.joined(separator: "  ") + "\n"
        }
        return out
    }

    public static func json(_ report: BenchSummary) -> JSONValue {
        .object([
            ("event", .string("bench")),
            ("width", .int(report.width)),
            ("height", .int(report.height)),
            ("threads", .int(report.threads)),
            ("kernels", .string(report.kernels)),
            ("repetitions", .int(report.repetitions)),
            ("baseline_copy_mpix_s", .double(round3(report.baselineCopyMegapixelsPerSecond))),
            (
                "results",
                .array(
                    report.results.map { r in
                        .object([
                            ("filter", .string(r.filter)),
                            ("mpix_s", .double(round3(r.megapixelsPerSecond))),
                            ("scalar_mpix_s", r.scalarMegapixelsPerSecond.map { .double(round3($0)) } ?? .null),
                        ])
                    })
            ),
        ])
    }

    static func fmt(_ v: Double) -> String { String(printf: "%.1f", v) }
    static func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
}
