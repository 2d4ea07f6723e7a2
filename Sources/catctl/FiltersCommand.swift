import ArgumentParser
import TerminalUI

struct Filters: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the filters, their values and what they do.",
        discussion: FilterListing.table(width: HelpLayout.limit - 2).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map { "  " + $0 }.joined(separator: "\n"))

    @Flag(help: "One JSON line: {\"event\": \"filters\", \"filters\": [...]} (without the spaces).")
    var json = false

    func run() throws {
        let console = Console.standard()
        // On a terminal the descriptions wrap to its width; piped, one line a filter.
        let width = console.stdoutIsTerminal ? console.columns - 1 : .max
        console.stdout.write(json ? FilterListing.json().encoded + "\n" : FilterListing.table(width: width))
    }
}
