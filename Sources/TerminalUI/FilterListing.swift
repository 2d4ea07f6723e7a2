import CatScenes
import CatSupport

/// `catctl filters`: the registry as a table or as one JSON line.
public enum FilterListing {
    /// The table, its descriptions wrapped under their column to fit `width` (a terminal's,
    /// or the help's); unlimited, one line a filter, for scripts.
    public static func table(width: Int = .max) -> String {
        let rows = FilterCatalog.entries.map { f -> [String] in
            [f.usage, f.kind, f.defaultValue.map(format) ?? "-", f.description]
        }
        let header = ["FILTER", "KIND", "DEFAULT", "DESCRIPTION"]
        let widths = (0..<3).map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        let column = widths.reduce(0, +) + 6
        // Too narrow for a description beside the columns: each goes under its filter.
        let room = width - column >= 20 ? width - column : max(20, width - 4)
        let indent = String(repeating: " ", count: width - column >= 20 ? column : 4)
        func line(_ r: [String]) -> String {
            let lead = (0..<3).map { r[$0].padded(to: widths[$0]) }.joined(separator: "  ") + "  "
            let text = r[3].wordWrapped(to: room)
            if width - column >= 20 { return lead + text.joined(separator: "\n" + indent) }
            return lead.trimmingWhitespace() + "\n" + text.map { indent + $0 }.joined(separator: "\n")
        }
        let use = "Use: catctl edit --filter NAME[:VALUE] [--filter ...] IN OUT   (chains run in order)"
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n\n"
            + use.wordWrapped(to: width).joined(separator: "\n") + "\n"
    }

    public static func json() -> JSONValue {
        .object([
            ("event", .string("filters")),
            (
                "filters",
                .array(
                    FilterCatalog.entries.map { f in
                        .object([
                            ("name", .string(f.name)),
                            ("kind", .string(f.kind)),
                            ("default", f.defaultValue.map { .double($0) } ?? .null),
                            ("description", .string(f.description)),
                        ])
                    })
            ),
        ])
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
