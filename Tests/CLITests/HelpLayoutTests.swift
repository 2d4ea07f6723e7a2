import Foundation
import TestSupport
import Testing

/// Help a person reads first: at 80 columns and at 60, no line of it is broken by the
/// argument parser's wrapping (tables and examples are laid out for the width), and the
/// examples, joined at their ` \` continuations, are whole commands a shell takes.
@Suite("Help that fits")
struct HelpLayoutTests {
    static let commands = ["", "load", "edit", "batch", "detect", "filters", "bench"]

    /// The help of `command` at `columns`, its usage lines too.
    func help(_ command: String, columns: Int) throws -> [String] {
        let result = try Catctl.run(
            (command.isEmpty ? [] : [command]) + ["--help"], environment: ["COLUMNS": "\(columns)"])
        #expect(result.status == 0, "\(command): \(result.stderr)")
        return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Lines joined at their ` \` continuations, trimmed.
    func joined(_ lines: [String]) -> [String] {
        var out: [String] = [], pending = ""
        for line in lines {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasSuffix(" \\") {
                pending += String(text.dropLast(2)) + " "
            } else {
                out.append(pending + text)
                pending = ""
            }
        }
        return out
    }

    @Test(arguments: commands, [80, 60])
    func noLineIsBroken(_ command: String, _ columns: Int) throws {
        for line in try help(command, columns: columns) {
            #expect(line.count <= columns, "catctl \(command) --help at \(columns): '\(line)'")
        }
    }

    @Test(arguments: [80, 60])
    func examplesAndTablesStayWhole(_ columns: Int) throws {
        let edit = joined(try help("edit", columns: columns))
        #expect(edit.contains("catctl edit --filter saturate:1.4 --filter contrast:1.1 in.jpg out.jpg --quality 85"))
        #expect(edit.contains("catctl edit -i Resources/cats/chelsea.jpg"))
        #expect(
            edit.contains("# live: arrows pick, Enter adds, s saves")
                || edit.contains {
                    $0.hasPrefix("catctl edit -i Resources/cats/chelsea.jpg   # live")
                })
        let batch = joined(try help("batch", columns: columns))
        #expect(batch.contains("find . -name '*.jpg' | catctl batch --filter mono --output-dir bw/ --format png -"))
        // Every exit code keeps its row: the code first, its words after it.
        let root = try help("", columns: columns)
        for code in ["0", "64", "65", "66", "69", "70", "73", "74", "130"] {
            #expect(root.contains { $0.hasPrefix("  \(code) ") }, "exit code \(code) at \(columns)")
        }
        #expect(root.contains { $0.hasPrefix("  CATCTL_FORMATS") })
    }
}
