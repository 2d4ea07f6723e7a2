import CatScenes
import Foundation
import TerminalUI
import TestSupport
import Testing

@MainActor
@Suite("Edit Cat views")
struct EditCatViewTests {
    @Test func jsonViewWritesDocumentedLines() throws {
        let out = MemorySink(), err = MemorySink()
        let view = EditCatJSONView(console: Console(stdout: out, stderr: err, stderrIsTerminal: false, color: false))
        view.updateProcessingState(.processing)
        view.showImageInfo(EditCatImageInfo(input: "a \"b\".jpg", format: "jpeg", width: 3, height: 2))
        view.showSaved(
            EditCatResult(
                input: "a \"b\".jpg", output: "o.png", width: 3, height: 2,
                filters: ["sepia", "hue-rotate:90"], milliseconds: 7))
        #expect(
            out.lines == [
                #"{"event":"decoded","input":"a \"b\".jpg","format":"jpeg","width":3,"height":2}"#,
                #"{"event":"saved","input":"a \"b\".jpg","output":"o.png","width":3,"height":2,"filters":["sepia","hue-rotate:90"],"ms":7,"frames":1,"inputFrames":1}"#,
            ])
        #expect(err.text.isEmpty)
        view.showError(SceneFailure(status: .dataError, message: "cannot decode x: bad\nline"))
        #expect(out.lines.last == #"{"event":"error","code":65,"message":"cannot decode x: bad\nline"}"#)
        #expect(err.text == "catctl: cannot decode x: bad\\nline\n", "the newline shown, not obeyed")
        for line in out.lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "valid JSON: \(line)")
        }
    }

    @Test func terminalViewIsPlainWhenNotATerminal() {
        let err = MemorySink()
        let view = EditCatTerminalView(
            console: Console(stdout: MemorySink(), stderr: err, stderrIsTerminal: false, color: true))
        view.updateProgress(EditCatProgress(percent: 40, label: "12.2 MP, sepia → o.png"))
        view.showSaved(
            EditCatResult(
                input: "a.jpg", output: "o.png", width: 3, height: 2, filters: ["sepia", "mono"],
                milliseconds: 7))
        view.showError(SceneFailure(status: .noInput, message: "cannot read a.jpg: no such file"))
        #expect(err.text == "saved o.png: 3x2, sepia → mono, 7 ms\ncatctl: error: cannot read a.jpg: no such file\n")
    }

    @Test func terminalViewRewritesItsProgressLine() {
        let err = MemorySink()
        let view = EditCatTerminalView(
            console: Console(stdout: MemorySink(), stderr: err, stderrIsTerminal: true, color: false))
        view.updateProgress(EditCatProgress(percent: 7, label: "12.2 MP, sepia → stdout"))
        view.updateProgress(EditCatProgress(percent: 50, label: "12.2 MP, sepia → stdout"))
        view.showSaved(
            EditCatResult(input: "a.jpg", output: "-", width: 3, height: 2, filters: ["sepia"], milliseconds: 7))
        let bar7 = String(repeating: "█", count: 1) + String(repeating: "░", count: 23)
        let bar50 = String(repeating: "█", count: 12) + String(repeating: "░", count: 12)
        #expect(
            err.text
                == "\r\u{1B}[2K\(bar7)   7% 12.2 MP, sepia → stdout\r\u{1B}[2K\(bar50)  50% 12.2 MP, sepia → stdout"
                + "\r\u{1B}[2Ksaved stdout: 3x2, sepia, 7 ms\n")
    }
}

@MainActor
@Suite("Failure wording and the view factory")
struct WordingTests {
    @Test func hintsAreWordedByTheCommandLineOnly() {
        let failure = SceneFailure(
            status: .dataError, message: "cannot decode a.png: 9x9 is 0.0 MP, over the limit", hint: .raisePixelLimit)
        #expect(FailureWording().message(failure) == failure.message)
        let wording = FailureWording(hints: [.raisePixelLimit: "raise it with --max-pixels"])
        #expect(wording.message(failure) == failure.message + " (raise it with --max-pixels)")
        let out = MemorySink(), err = MemorySink()
        let console = Console(stdout: out, stderr: err, stderrIsTerminal: false, color: false)
        EditCatJSONView(console: console, wording: wording).showError(failure)
        #expect(out.text.contains("(raise it with --max-pixels)") && err.text.contains("(raise it with --max-pixels)"))
        let plain = MemorySink()
        EditCatTerminalView(
            console: Console(stdout: MemorySink(), stderr: plain, stderrIsTerminal: false, color: true),
            wording: wording
        ).showError(failure)
        #expect(plain.text == "catctl: error: \(failure.message) (raise it with --max-pixels)\n")
    }

    @Test func theFactoryPicksViewsInOnePlace() {
        let console = Console(
            stdout: MemorySink(), stderr: MemorySink(), stderrIsTerminal: true, color: false,
            stdoutIsTerminal: true)
        let json = ViewFactory(console: console, json: true)
        #expect(
            json.editCat() is EditCatJSONView && json.batch() is BatchJSONView
                && json.loadCat(output: nil).load is LoadCatJSONView)
        #expect(!json.picturesAllowed(output: nil))
        let human = ViewFactory(console: console, json: false)
        #expect(human.editCat() is EditCatTerminalView && human.batch() is BatchTerminalView)
        #expect(human.loadCat(output: nil).load is LoadCatTerminalView && human.picturesAllowed(output: "cat.png"))
        #expect(human.loadCat(output: "-").load is LoadCatPlainView && !human.picturesAllowed(output: "-"))
        let piped = ViewFactory(
            console: Console(
                stdout: MemorySink(), stderr: MemorySink(), stderrIsTerminal: false,
                color: false), json: false)
        #expect(piped.loadCat(output: nil).load is LoadCatPlainView)
    }
}
