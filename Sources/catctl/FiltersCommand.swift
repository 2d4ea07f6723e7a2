import ArgumentParser
import TerminalUI

struct Filters: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the filters, their values and what they do.",
        discussion: FilterListing.table().split(separator: "\n", omittingEmptySubsequences: false)
            .map { "  " + $0 }.joined(separator: "\n"))

    @Flag(help: "One JSON line: {\"event\":\"filters\",\"filters\":[...]}.")
    var json = false

    func run() throws {
        let console = Console.standard()
        console.stdout.write(json ? FilterListing.json().encoded + "\n" : FilterListing.table())
    }
}
