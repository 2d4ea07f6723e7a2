import FilterCore

/// `catctl filters`: the registry as a table or as one JSON line.
public enum FilterListing {
    public static func table() -> String {
        let rows = FilterRegistry.all.map { f -> [String] in
            [f.usage, f.kind.rawValue, f.parameter.defaultValue.map(format) ?? "-", f.description]
        }
        let header = ["FILTER", "KIND", "DEFAULT", "DESCRIPTION"]
        let widths = (0..<3).map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        func line(_ r: [String]) -> String {
            (0..<3).map { r[$0].padded(to: widths[$0]) }.joined(separator: "  ")
                + "  " + r[3]
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
            + "\nUse: catctl edit --filter NAME[:VALUE] [--filter ...] IN OUT   (chains run in order)\n"
    }

    public static func json() -> JSONValue {
        .object([
            ("event", .string("filters")),
            (
                "filters",
                .array(
                    FilterRegistry.all.map { f in
                        .object([
                            ("name", .string(f.name)),
                            ("kind", .string(f.kind.rawValue)),
                            ("default", f.parameter.defaultValue.map { .double($0) } ?? .null),
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
