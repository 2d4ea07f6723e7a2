import CatScenes

/// The live scenes' navigation on the terminal: `e` in Load Cat shows the live Edit Cat
/// scene on top, with a new presenter for each cat; Esc there (through its presenter)
/// comes back.
@MainActor
public final class LiveRouter: LoadCatLiveRouting, EditCatLiveRouting {
    /// The app owns its screens (its stack of scenes), so they hold it unowned: else each
    /// would keep the other alive.
    private unowned let host: any LiveHost
    private let editScreen: EditCatLiveScreen
    private let editInteractor: any EditCatLiveInteractorInput

    public convenience init(app: LiveApp, editScreen: EditCatLiveScreen, editInteractor: any EditCatLiveInteractorInput)
    {
        self.init(host: app, editScreen: editScreen, editInteractor: editInteractor)
    }

    init(host: any LiveHost, editScreen: EditCatLiveScreen, editInteractor: any EditCatLiveInteractorInput) {
        self.host = host
        self.editScreen = editScreen
        self.editInteractor = editInteractor
    }

    /// What to tell when the editor shown last is closed.
    private var closed: (@MainActor () -> Void)?

    public func showEditScene(closed: @escaping @MainActor () -> Void) -> EditCatLivePresenter {
        let presenter = Router.makeEditCatLive(view: editScreen, interactor: editInteractor, router: self)
        self.closed = closed
        host.push(editScreen)
        return presenter
    }

    public func closeEditScene() {
        guard host.isOnTop(editScreen) else { return }
        host.goBack()
        closed?()
    }
}
