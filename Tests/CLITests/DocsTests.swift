import Foundation
import TestSupport
import Testing

/// The generated parts of README.md and docs/*.md (scripts/make-docs) are what the code
/// makes today: the key tables, the filter, format, provider and exit-code tables, and the
/// option synopses.
@Suite("Docs made from the code")
struct DocsTests {
    @Test func theGeneratedPartsAreCurrent() throws {
        let binary = try #require(Catctl.executable)
        let result = try Catctl.run(
            program: URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Fixtures.packageRoot.appendingPathComponent("scripts/make-docs").path, "--check", binary.path])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Every page has the parts it is meant to hold (an edit that drops a marker is caught).
    @Test func thePagesHoldTheirParts() throws {
        let parts = [
            "README.md": ["providers", "keys-edit", "keys-load", "exit-codes"],
            "docs/CLI.md": ["synopsis", "exit-codes", "keys-edit", "keys-load"],
            "docs/live.md": ["keys-edit", "keys-load"], "docs/editing.md": ["synopsis-edit", "filters"],
            "docs/formats.md": ["formats"], "docs/load.md": ["synopsis-load", "providers"],
            "docs/batch.md": ["synopsis-batch"],
        ]
        for (page, names) in parts {
            let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(page), encoding: .utf8)
            for name in names {
                #expect(text.contains("<!-- make-docs: \(name) -->\n"), "\(page): \(name)")
                #expect(!text.contains("<!-- make-docs: \(name) -->\n<!-- /make-docs -->"), "\(page): \(name) empty")
            }
        }
    }
}
