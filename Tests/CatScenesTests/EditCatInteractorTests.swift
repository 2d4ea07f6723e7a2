import CatScenes
import Foundation
import ImageIO
import TerminalUI
import Testing
import TestSupport

@MainActor
@Suite("Edit Cat with the real interactor and views")
struct EditCatSceneTests {
    @Test func editsAFixtureToPNGAndJPEG() async throws {
        let dir = try Fixtures.temporaryDirectory()
        for name in ["out.png", "out.jpg"] {
            let view = RecordingEditCatView()
            let output = dir.appendingPathComponent(name).path
            let presenter = Router.makeEditCat(view: view, interactor: EditCatInteractor(threads: 2))
            let status = await presenter.edit(EditRequest(input: Fixtures.path("jpeg/chelsea-420.jpg"), output: output,
                                                          filters: ["sepia"]))
            #expect(status == .ok)
            let back = try ImageDecoder.decode(try InputFile.read(output), name: output)
            #expect(back.format == ImageFormat(path: name))
            #expect(back.pixels.width == 97 && back.pixels.height == 61)
        }
        #expect(Fixtures.contents(of: dir) == ["out.jpg", "out.png"])
    }

    @Test func failureLeavesNoFile() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let view = RecordingEditCatView()
        let presenter = Router.makeEditCat(view: view)
        let status = await presenter.edit(EditRequest(input: Fixtures.path("jpeg/monkey12.jpg"),
                                                      output: dir.appendingPathComponent("o.png").path, filters: ["mono"]))
        #expect(status == .dataError)
        #expect(Fixtures.contents(of: dir).isEmpty)
    }

    @Test func jsonViewWritesDocumentedLines() throws {
        let out = MemorySink(), err = MemorySink()
        let view = EditCatJSONView(console: Console(stdout: out, stderr: err, stderrIsTerminal: false, color: false))
        view.updateProcessingState(.processing)
        view.showImageInfo(EditCatImageInfo(input: "a \"b\".jpg", format: "jpeg", width: 3, height: 2))
        view.showSaved(EditCatResult(input: "a \"b\".jpg", output: "o.png", width: 3, height: 2,
                                     filters: ["sepia", "hue-rotate:90"], milliseconds: 7))
        #expect(out.lines == [
            #"{"event":"decoded","input":"a \"b\".jpg","format":"jpeg","width":3,"height":2}"#,
            #"{"event":"saved","input":"a \"b\".jpg","output":"o.png","width":3,"height":2,"filters":["sepia","hue-rotate:90"],"ms":7}"#,
        ])
        #expect(err.text.isEmpty)
        view.showError(SceneFailure(status: .dataError, message: "cannot decode x: bad\nline"))
        #expect(out.lines.last == #"{"event":"error","code":65,"message":"cannot decode x: bad\nline"}"#)
        #expect(err.text == "catctl: cannot decode x: bad\nline\n")
        for line in out.lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "valid JSON: \(line)")
        }
    }

    @Test func terminalViewIsPlainWhenNotATerminal() {
        let err = MemorySink()
        let view = EditCatTerminalView(console: Console(stdout: MemorySink(), stderr: err, stderrIsTerminal: false, color: true))
        view.updateProgress(EditCatProgress(step: 1, totalSteps: 2, label: "filtering 12.2 MP"))
        view.showSaved(EditCatResult(input: "a.jpg", output: "o.png", width: 3, height: 2, filters: ["sepia", "mono"],
                                     milliseconds: 7))
        view.showError(SceneFailure(status: .noInput, message: "cannot read a.jpg: no such file"))
        #expect(err.text == "saved o.png: 3x2, sepia → mono, 7 ms\ncatctl: error: cannot read a.jpg: no such file\n")
    }

    @Test func terminalViewRewritesItsProgressLine() {
        let err = MemorySink()
        let view = EditCatTerminalView(console: Console(stdout: MemorySink(), stderr: err, stderrIsTerminal: true, color: false))
        view.updateProgress(EditCatProgress(step: 1, totalSteps: 2, label: "filtering 12.2 MP"))
        view.showSaved(EditCatResult(input: "a.jpg", output: "-", width: 3, height: 2, filters: ["sepia"], milliseconds: 7))
        #expect(err.text == "\r\u{1B}[2K[1/2] filtering 12.2 MP…\r\u{1B}[2Ksaved stdout: 3x2, sepia, 7 ms\n")
    }
}
