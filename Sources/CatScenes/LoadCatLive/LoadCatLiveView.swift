import CatImageIO
import CatPixels

/// What the live Load Cat scene shows (`catctl load --interactive`): the one-shot scene's
/// events, and the live ones. Views implement every event and hold no logic.
@MainActor
public protocol LoadCatLiveView: LoadCatView {
    /// Where this view sends the user's input (set by the presenter). Views keep it weakly.
    func attach(_ presenter: any LoadCatLiveViewOutput)
    /// How many cats have been shown so far (the title counts them).
    func updateCatCount(_ count: Int)
    /// Asks where to save the cat; the view answers with `LoadCatLiveViewOutput.save(to:)`.
    func askForOutput(suggested: String)
    /// A frame of the animated cat playing, at the preview's size, in the picture's place.
    func showFrame(_ picture: PixelBuffer, index: Int, count: Int)
}

/// What the live Load Cat view sends its presenter: the seed app's buttons as inputs, each
/// one the presenter decides on (nothing while a cat loads, or before one is in hand).
/// The view holds this, weakly, and nothing else of the scene.
@MainActor
public protocol LoadCatLiveViewOutput: AnyObject {
    /// `n`: another cat.
    func nextCat() async
    /// Esc or Ctrl-C: stops a load under way; false when none is.
    @discardableResult func cancel() -> Bool
    /// `s`: asks the view where to save the cat (`askForOutput`).
    func requestSave() async
    /// The view's answer: saves the cat as it is at `output`.
    @discardableResult func save(to output: String) async -> ExitStatus
    /// `e`: the cat in hand to the live editor (the router shows it).
    @discardableResult func editCat() async -> SceneFailure?
}

/// Where the live Load Cat scene leads (the seed app's `showEditScene(withPresenter:)`):
/// the terminal layer puts the live Edit Cat scene on screen, Esc there comes back.
@MainActor
public protocol LoadCatLiveRouting: AnyObject {
    /// Shows the live Edit Cat scene and returns its presenter (a new one for each cat);
    /// `closed` hears when Esc there comes back.
    func showEditScene(closed: @escaping @MainActor () -> Void) -> EditCatLivePresenter
}
