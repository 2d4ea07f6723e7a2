import ArgumentParser
import CatImageIO
import CatNetwork
import CatScenes
import CatSupport
import TerminalUI

/// `catctl docs-tables` (not in the help): the tables the docs hold, made from the code, as
/// one JSON object of Markdown by name. scripts/make-docs writes them into README.md and
/// docs/*.md between `<!-- make-docs: NAME -->` markers (with the option synopses, from the
/// parser's own description), and a test checks that the docs are current.
struct DocsTables: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs-tables", abstract: "The docs' generated tables, as JSON (for scripts/make-docs).",
        shouldDisplay: false)

    func run() async throws {
        let keys = await MainActor.run { (edit: LiveKeyTables.edit, load: LiveKeyTables.load) }
        let tables: [(String, String)] = [
            ("keys-edit", keys.edit),
            ("keys-load", keys.load),
            ("filters", Self.filters),
            ("formats", Self.formats),
            ("providers", Self.providers),
            ("exit-codes", Self.table(["code", "meaning"], Catctl.exitCodes.map { [$0.term, $0.text] })),
        ]
        print(JSONValue.object(tables.map { ($0.0, .string($0.1)) }).encoded)
    }

    static var filters: String {
        table(
            ["filter", "kind", "default", "what it does"],
            FilterCatalog.entries.map { f in
                [
                    "`\(f.usage)`", f.kind, f.defaultValue.map { $0 == $0.rounded() ? "\(Int($0))" : "\($0)" } ?? "–",
                    f.description,
                ]
            })
    }

    static var formats: String {
        table(
            ["format", "extensions", "animations", "encoder settings (default)"],
            ImageFormat.all.map { format in
                let settings = EncoderSetting.allCases.compactMap { setting -> String? in
                    switch format.controls[setting] {
                    case let .integer(range, value)?:
                        "`--\(setting.rawValue)` \(range.lowerBound)-\(range.upperBound) (\(value))"
                    case .flag?: "`--\(setting.rawValue)`"
                    case let .choice(names, value)?:
                        "`--\(setting.rawValue)` \(names.joined(separator: "|")) (\(value))"
                    case nil: nil
                    }
                }
                return [
                    format.displayName, format.fileExtensions.map { "`.\($0)`" }.joined(separator: " "),
                    format.animates ? "yes" : "–", settings.isEmpty ? "–" : settings.joined(separator: ", "),
                ]
            })
    }

    static var providers: String {
        table(
            ["provider", "what it asks"],
            CatProviderKind.all.map { kind in
                ["`\(kind.name)`" + (kind == .default ? " (default)" : ""), kind.help(imageFormats: "image")]
            })
    }

    /// A Markdown table; `|`, `<` and `>` in a cell escaped.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        func escaped(_ cell: String) -> String {
            cell.map { c in c == "|" ? "\\|" : c == "<" ? "&lt;" : c == ">" ? "&gt;" : String(c) }.joined()
        }
        func line(_ cells: [String]) -> String { "| " + cells.map(escaped).joined(separator: " | ") + " |\n" }
        return line(header) + line(header.map { _ in "---" }) + rows.map(line).joined()
    }
}
