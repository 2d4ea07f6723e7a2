/// What the live Load Cat scene shows (`catctl load --interactive`): the one-shot scene's
/// events, and the live ones. Views implement every event and hold no logic.
@MainActor
public protocol LoadCatLiveView: LoadCatView {
    /// The presenter this view sends the user's input to (set by the presenter). Views keep it weakly.
    func attach(_ presenter: LoadCatLivePresenter)
    /// How many cats have been shown so far (the title counts them).
    func updateCatCount(_ count: Int)
    /// Asks where to save the cat; the view answers with `LoadCatLivePresenter.save(to:)`.
    func askForOutput(suggested: String)
}

/// Where the live Load Cat scene leads (the seed app's `showEditScene(withPresenter:)`):
/// the terminal layer puts the live Edit Cat scene on screen, Esc there comes back.
@MainActor
public protocol LoadCatLiveRouting: AnyObject {
    /// Shows the live Edit Cat scene and returns its presenter (a new one for each cat).
    func showEditScene() -> EditCatLivePresenter
}
