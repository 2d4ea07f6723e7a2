import ArgumentParser
import CatImageIO
import CatNetwork
import CatScenes
import CatSupport
import TerminalUI

/// `--interactive`: the two scenes live in the terminal. Builds the app, its views and
/// the presenters (through the router), runs it, and gives the terminal back.
enum LiveTerminal {
    /// A usage error (64) unless stdin and stdout are both a terminal.
    static func requireTerminal() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError(
                "--interactive needs a terminal: stdin and stdout must be a terminal, not a pipe or a file")
        }
    }

    /// `edit --interactive IN [OUT]`: the live Edit Cat scene on IN.
    @MainActor
    static func edit(_ request: EditRequest, graphics: GraphicsMode, threads: Int) async -> ExitStatus {
        let app = LiveApp(console: Console.standard(graphics: graphics), wording: .commandLine(force: true))
        let view = EditCatLiveScreen(app: app)
        let presenter = Router.makeEditCatLive(view: view, interactor: EditCatLiveInteractor(threads: threads))
        guard enter(app) else { return .ioError }
        app.push(view)
        if let failure = await presenter.openLive(.file(request.input), request) {
            app.leave()
            FileDescriptorSink(fd: STDERR_FILENO).write(app.wording.errorLine(failure, color: app.console.color))
            return failure.status
        }
        let status = await app.run()
        app.leave()
        await app.finishWork()  // a save under way completes; a preview ends
        await presenter.endPlaying()
        return status
    }

    /// `load --interactive`: the live Load Cat scene, Edit Cat behind `e`.
    @MainActor
    static func load(_ request: LoadRequest, provider: any CatProvider, graphics: GraphicsMode) async -> ExitStatus {
        let app = LiveApp(console: Console.standard(graphics: graphics), wording: .commandLine())
        let view = LoadCatLiveScreen(app: app)
        let router = LiveRouter(
            app: app, editScreen: EditCatLiveScreen(app: app), editInteractor: EditCatLiveInteractor())
        let presenter = Router.makeLoadCatLive(
            view: view, interactor: Router.makeLoadCatInteractor(provider: provider), router: router)
        guard enter(app) else { return .ioError }
        app.push(view)
        var request = request
        (request.previewWidth, request.previewHeight) = view.previewPixels
        let loading = Task { await presenter.startLive(request) }
        let status = await app.run()
        presenter.cancel()  // a load under way stops at once
        app.leave()
        await app.finishWork()  // a save under way completes; a preview ends
        await loading.value
        await presenter.endPlaying()
        return status
    }

    @MainActor
    private static func enter(_ app: LiveApp) -> Bool {
        do {
            try app.enter()
            return true
        } catch {
            FileDescriptorSink(fd: STDERR_FILENO).write(
                FailureWording.errorLine("cannot take the terminal: \(error)", color: false))
            return false
        }
    }
}
