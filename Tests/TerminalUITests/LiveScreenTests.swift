import CatImageIO
import CatNetwork
import CatPixels
import CatScenes
import FilterCore
import Foundation
import TestSupport
import Testing

@testable import TerminalUI

/// A host for the live screens without a terminal: keys go in by `press`, every frame
/// written is kept, the presenter's work runs when `settle` awaits it.
@MainActor
final class FakeHost: LiveHost {
    var columns = 100, rows = 30
    var cell: (width: Int, height: Int)? = nil
    var graphics = TerminalGraphics(kind: .none, colors: .none, forced: true)
    let wording = FailureWording()
    private(set) var frames: [String] = []
    private(set) var quitWith: CatScenes.ExitStatus?
    private var scenes: [any LiveScene] = []
    private var work: [Task<Void, Never>] = []

    var canGoBack: Bool { scenes.count > 1 }
    func isOnTop(_ scene: any LiveScene) -> Bool { scenes.last === scene }
    func write(_ frame: String) { frames.append(frame) }
    func perform(_ input: @escaping @MainActor () async -> Void) { work.append(Task { await input() }) }
    func push(_ scene: any LiveScene) {
        scenes.append(scene)
        scene.screenChanged()
    }
    func goBack() {
        scenes.removeLast()
        scenes.last?.draw()
    }
    func quit(_ status: CatScenes.ExitStatus) { quitWith = status }

    /// Sends `key` to the scene on top and waits for the work it started.
    func press(_ keys: Key...) async {
        for key in keys {
            scenes.last?.handle(key)
            await settle()
        }
    }

    func settle() async {
        while !work.isEmpty {
            let pending = work
            work = []
            for task in pending { await task.value }
        }
    }

    /// The last frame's text, escape sequences removed (each becomes a line break).
    var screen: String {
        var text = "", escape = false
        for scalar in (frames.last ?? "").unicodeScalars {
            if scalar == "\u{1B}" {
                escape = true
                text += "\n"
            } else if escape {
                if scalar.properties.isAlphabetic || scalar == "\\" { escape = false }  // the final byte
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}

/// Serves one cat, decoded, as the live Load Cat scene asks.
final class OneCatInteractor: LoadCatInteractorInput {
    let cat: LoadedCat
    init(_ cat: LoadedCat) { self.cat = cat }
    func loadCat(_ useCase: LoadCatUseCase, events: @escaping @MainActor (LoadCatEvent) -> Void) async throws
        -> LoadedCat
    {
        events(.found(cat.reference))
        return cat
    }
    func cancelLoad() -> Bool { false }
    func saveCat(_ cat: LoadedCat, to output: String, options: EncodeOptions, maxPixels: Int) async throws {}
    func unusedName(_ path: String) async -> String { path }
}

/// The live editor's use cases on an image in hand: pixels only, no file.
struct PixelsOnlyInteractor: EditCatLiveInteractorInput {
    func edit(
        _ input: EditInput, to output: String, chain: FilterChain, options: EditOptions,
        events: @escaping @Sendable (EditEvent) -> Void
    ) async throws -> EditOutcome {
        EditOutcome(width: 1, height: 1, streamed: false)
    }
    func openLive(_ input: EditInput, sizes: EditCatPictureSizes, options: DecodeOptions) async throws
        -> (preview: DecodedImage, thumbnail: PixelBuffer)
    {
        switch input {
        case let .image(image): return try EditCatLiveInteractor.pictures(of: image, sizes: sizes, threads: 1)
        case let .bytes(data, name):
            return try EditCatLiveInteractor.pictures(
                of: ImageDecoder.decode(data, name: name, options: options), sizes: sizes, threads: 1)
        case .file: throw ImageIOError.inputMissing(path: "(not in hand)")
        }
    }
    func openFull(_ input: EditInput, options: DecodeOptions) async throws -> PixelBuffer {
        guard case let .image(image) = input else { throw ImageIOError.inputMissing(path: "(not in hand)") }
        return image.pixels
    }
    func renderLive(_ image: PixelBuffer, fullWidth: Int, chains: [FilterChain]) async
        -> [Result<PixelBuffer, any Error>]
    {
        EditCatLiveInteractor.render(image, fullWidth: fullWidth, chains: chains, threads: 1)
    }
    func unusedName(_ path: String) async -> String { path }
}

@MainActor
@Suite("Live screens: keys in, frames out (a fake host)")
struct LiveScreenTests {
    func cat() throws -> DecodedImage {
        DecodedImage(pixels: try PixelBuffer.random(width: 60, height: 40, seed: 3), format: .png)
    }

    /// The editor on `cat.png`; the caller keeps the presenter (views hold it weakly).
    func openEditor(_ host: FakeHost) async throws -> (EditCatLiveScreen, EditCatLivePresenter) {
        let screen = EditCatLiveScreen(host: host)
        let presenter = Router.makeEditCatLive(view: screen, interactor: PixelsOnlyInteractor())
        host.push(screen)
        #expect(
            await presenter.openLive(
                .image(try cat()), EditRequest(input: "cat.png", output: "", filters: [], format: .png)) == nil)
        return (screen, presenter)
    }

    @Test func theEditorsFooterAndHelpComeFromItsKeyMap() async throws {
        let host = FakeHost()
        let (_, presenter) = try await openEditor(host)
        #expect(host.screen.contains("catctl edit · cat.png · 60x40 png"))
        #expect(host.screen.contains(EditCatLiveScreen.keys(back: false).footer))
        #expect(!host.screen.contains("Esc back"))
        await host.press(.char("?"))
        for row in EditCatLiveScreen.keys(back: false).helpRows {
            #expect(host.screen.contains(row.keys) && host.screen.contains(row.help))
        }
        #expect(!host.screen.contains("Ctrl-C"))  // the way out from anywhere is not listed there
        await host.press(.char("x"))  // any key: back, and nothing else
        #expect(host.screen.contains("chain: (none)  + mono"))
        withExtendedLifetime(presenter) {}
    }

    @Test func editorKeysReachThePresenter() async throws {
        let host = FakeHost()
        let (_, presenter) = try await openEditor(host)
        await host.press(.right)
        #expect(host.screen.contains("chain: (none)  + sepia:1"))
        await host.press(.char("l"), .char("h"), .enter)
        #expect(host.screen.contains("chain: sepia:1  · 60x40 → 60x40"))
        await host.press(.delete)
        #expect(host.screen.contains("chain: (none)  · 60x40"))
        await host.press(.char("s"))
        #expect(host.screen.contains("save the cat as it is as: cat.png█"))
        await host.press(.ctrl("c"))  // from the prompt too
        #expect(host.quitWith == .interrupted)
        withExtendedLifetime(presenter) {}
    }

    @Test func loadCatsEditKeyNavigatesThroughTheRouter() async throws {
        let host = FakeHost()
        let reference = CatReference(provider: "folder", id: "tabby", url: "file:///cats/tabby.png")
        let loaded = LoadedCat(
            reference: reference, bytes: [1, 2, 3], image: try cat(), isFullSize: true, preview: nil)
        let screen = LoadCatLiveScreen(host: host)
        let router = LiveRouter(
            host: host, editScreen: EditCatLiveScreen(host: host), editInteractor: PixelsOnlyInteractor())
        let presenter = Router.makeLoadCatLive(view: screen, interactor: OneCatInteractor(loaded), router: router)
        host.push(screen)
        await presenter.startLive(LoadRequest(provider: "folder"))
        #expect(host.screen.contains("catctl load · cat 1"))
        #expect(host.screen.contains("folder cat tabby  60x40, 3 B"))
        #expect(host.screen.contains(LoadCatLiveScreen.keys.footer))
        let footer = LoadCatLiveScreen.keys.footer
        let edit = try #require(footer.range(of: "e edit"))
        // A click on "e edit" in the footer, as a key would.
        await host.press(
            .mouse(
                MouseEvent(.press, column: footer.distance(from: footer.startIndex, to: edit.lowerBound) + 2, row: 30)))
        #expect(host.canGoBack)  // the editor is on top, pushed by the router
        #expect(host.screen.contains("catctl edit · folder cat tabby · 60x40 png"))
        #expect(host.screen.contains("Esc back  q quit"))
        await host.press(.escape)
        #expect(!host.canGoBack && host.screen.contains("catctl load · cat 1"))
        await host.press(.char("q"))
        #expect(host.quitWith == .ok)
    }

    /// `u` and `U` through the screen: the status line says what was undone and redone.
    @Test func undoAndRedoKeysSayWhatTheyDid() async throws {
        let host = FakeHost()
        let (_, presenter) = try await openEditor(host)
        await host.press(.enter)
        #expect(host.screen.contains("chain: mono"))
        await host.press(.char("u"))
        #expect(host.screen.contains("chain: (none)") && host.screen.contains("undid: add mono"))
        await host.press(.ctrl("r"))
        #expect(host.screen.contains("chain: mono") && host.screen.contains("redid: add mono"))
        withExtendedLifetime(presenter) {}
    }

    /// `t` opens the caption's line editor: what is typed shows on the prompt neutralised
    /// (an escape sequence's bytes come as keys the editor drops; a C1 control typed as a
    /// character is shown escaped), goes to the presenter as it changes, and Enter keeps it.
    @Test func aCaptionIsTypedOnThePromptLine() async throws {
        let host = FakeHost()
        let (_, presenter) = try await openEditor(host)
        await host.press(.char("t"))
        #expect(host.screen.contains("caption: █") && host.screen.contains("caption: Enter keeps it"))
        var decoder = KeyDecoder()
        for input in decoder.feed(Array("Møøse \u{1B}[31mcat\u{1B}]0;pwned\u{07} \u{9B}2J".utf8)) + decoder.flush() {
            if case let .key(key) = input { await host.press(key) }
        }
        #expect(host.screen.contains("caption: Møøse cat \\u009B2J█"), "\(host.screen)")
        await host.press(.home, .delete, .char("m"), .end)
        #expect(host.screen.contains("caption: møøse cat"))
        await host.press(.enter)
        #expect(host.screen.contains("chain: caption:møøse cat \\u009B2J"))
        #expect(!host.screen.contains("\u{9B}"))
        await host.press(.char("u"))
        #expect(host.screen.contains("chain: (none)") && host.screen.contains("undid: add caption:møøse"))
        withExtendedLifetime(presenter) {}
    }

    /// `c` draws the frame and the status line says where it is; the arrows move the frame,
    /// not the highlight; Enter crops; `q` with the crop unsaved asks once.
    @Test func cropKeysAndTheQuestionBeforeQuitting() async throws {
        let host = FakeHost()
        let (_, presenter) = try await openEditor(host)
        await host.press(.char("c"))
        #expect(host.screen.contains("crop 1:1: 40x40+10+0  · arrows move"))
        await host.press(.right)
        #expect(host.screen.contains("crop 1:1: 40x40+11+0"))
        await host.press(.char("c"), .enter)
        #expect(host.screen.contains("chain: crop:32x40+14+0"))
        await host.press(.char("q"))
        #expect(host.screen.contains("unsaved: s save, q quit anyway") && host.quitWith == nil)
        await host.press(.char("q"))
        #expect(host.quitWith == .ok)
        withExtendedLifetime(presenter) {}
    }

    /// `z` and `space` say on the status line what the preview is; Esc leaves the zoom.
    @Test func zoomAndOriginalSayWhatIsShown() async throws {
        let host = FakeHost()
        let (_, presenter) = try await openEditor(host)
        await host.press(.char(" "))
        #expect(host.screen.contains("original  · Space: back to the chain"))
        await host.press(.char(" "), .char("z"))
        #expect(host.screen.contains("1:1 at 0,0 of 60x40"))
        await host.press(.escape)
        #expect(host.screen.contains("chain: (none)  + mono"))
        withExtendedLifetime(presenter) {}
    }

    /// The mouse: a click on a thumbnail picks its filter, the wheel changes the value, a
    /// click on the footer runs the key named there.
    @Test func clicksAndTheWheel() async throws {
        let host = FakeHost()
        let (screen, presenter) = try await openEditor(host)
        let layout = EditCatLiveScreen.Layout(host)
        let top = host.rows - 2 - layout.tileRows
        // The strip is centred on the screen, the first filter (highlighted) in its first tile.
        let left = 1 + max(0, (host.columns - (layout.stripCount * (layout.tileColumns + 1) - 1)) / 2)
        await host.press(.mouse(MouseEvent(.press, column: left + layout.tileColumns + 2, row: top + 1)))
        #expect(screen.lastLive?.highlightedSpec == "sepia:1")
        await host.press(.mouse(MouseEvent(.wheelDown, column: 5, row: 5)))
        #expect(screen.lastLive?.highlightedSpec == "sepia:0.9")
        let footer = EditCatLiveScreen.keys(back: false).footer
        let undo = try #require(footer.range(of: "u undo"))
        let column = footer.distance(from: footer.startIndex, to: undo.lowerBound) + 1
        await host.press(.mouse(MouseEvent(.press, column: column, row: host.rows)))
        #expect(screen.lastLive?.highlightedSpec == "sepia:1" && screen.lastLive?.note == "undid: change sepia")
        await host.press(.mouse(MouseEvent(.release, column: column, row: host.rows)))  // a release does nothing
        #expect(screen.lastLive?.note == "undid: change sepia")
        withExtendedLifetime(presenter) {}
    }

    /// An animation in kitty: the preview is placed under catctl's own id, and each frame
    /// then replaces its pixels and redraws the status line, without clearing the screen.
    @Test func kittyFramesReplaceThePreviewInPlace() async throws {
        let host = FakeHost()
        host.graphics = TerminalGraphics(kind: .kitty, colors: .trueColor, forced: true)
        let screen = EditCatLiveScreen(host: host)
        let presenter = Router.makeEditCatLive(view: screen, interactor: PixelsOnlyInteractor())
        host.push(screen)
        let bytes = try Fixtures.bytes("gif/anim-delays-loop.gif")
        #expect(
            await presenter.openLive(
                .bytes(bytes, name: "anim.gif"), EditRequest(input: "anim.gif", output: "", filters: [], format: .gif))
                == nil)
        #expect(host.frames.last?.contains("i=\(KittyPicture.previewID),q=2") == true)
        for _ in 0..<300 where !(host.frames.last?.contains("a=f,r=1") ?? false) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let frame = try #require(host.frames.last)
        #expect(frame.contains("a=f,r=1,X=1") && frame.contains("a=a,c=1,i=\(KittyPicture.previewID)"))
        #expect(!frame.contains("a=d") && !frame.contains("\u{1B}[2J"), "the screen is not cleared")
        #expect(host.screen.contains("frame ") && host.screen.contains("/5"))
        await presenter.togglePlaying()
        withExtendedLifetime(presenter) {}
    }

    @Test func aKeyMapFindsItsBindingsAndSharesRows() {
        let keys = EditCatLiveScreen.keys(back: false)
        #expect(keys.binding(for: .char("h"))?.action == .previous && keys.binding(for: .right)?.action == .next)
        #expect(keys.binding(for: .ctrl("d"))?.action == .quit && keys.binding(for: .char("x")) == nil)
        #expect(keys.helpRows.first?.keys == "← → or h l" && keys.helpRows.count == 16)
        #expect(EditCatLiveScreen.keys(back: true).helpRows.count == 17)
        #expect(keys.binding(for: .char("u"))?.action == .undo && keys.binding(for: .char("U"))?.action == .redo)
        #expect(keys.binding(for: .ctrl("r"))?.action == .redo)
        #expect(keys.binding(for: .char("f"))?.action == .faces)
    }
}
