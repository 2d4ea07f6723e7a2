import CatImageIO
import CatNetwork

/// Builds scenes: view + presenter + interactor, wired, and moves from Load Cat to Edit
/// Cat with the decoded cat in hand. The commands call this and nothing else of a
/// scene's insides. Every interactor is given: nothing real is made behind a test's back.
@MainActor
public enum Router {
    public static func makeEditCat(view: any EditCatView, interactor: any EditCatInteractorInput) -> EditCatPresenter {
        EditCatPresenter(view: view, interactor: interactor)
    }

    /// `router`: where Esc goes back to (Load Cat's); nil for `edit -i`.
    public static func makeEditCatLive(
        view: any EditCatLiveView, interactor: any EditCatLiveInteractorInput, router: (any EditCatLiveRouting)? = nil
    ) -> EditCatLivePresenter {
        EditCatLivePresenter(view: view, interactor: interactor, router: router)
    }

    /// `editView` shows the Edit Cat scene if the cat is edited (`load --filter`).
    public static func makeLoadCat(
        view: any LoadCatView, interactor: any LoadCatInteractorInput,
        editView: any EditCatView, editInteractor: any EditCatInteractorInput
    ) -> LoadCatPresenter {
        LoadCatPresenter(
            view: view, interactor: interactor,
            makeEditor: { makeEditCat(view: editView, interactor: editInteractor) })
    }

    /// The live Load Cat scene; `router` shows the live Edit Cat scene when a cat is edited.
    public static func makeLoadCatLive(
        view: any LoadCatLiveView, interactor: any LoadCatInteractorInput, router: any LoadCatLiveRouting
    ) -> LoadCatLivePresenter {
        LoadCatLivePresenter(view: view, interactor: interactor, router: router)
    }

    public static func makeBatch(view: any BatchView, interactor: any BatchInteractorInput) -> BatchPresenter {
        BatchPresenter(view: view, interactor: interactor)
    }

    public static func makeDetectCat(
        view: any DetectCatView, interactor: any DetectCatInteractorInput
    ) -> DetectCatPresenter {
        DetectCatPresenter(view: view, interactor: interactor)
    }

    /// What the providers accept as a cat picture: whatever the codec registry reads.
    public nonisolated static let catImageFormats = CatImageFormats(
        recognize: { ImageFormat.sniff($0)?.name }, fileExtensions: Set(ImageFormat.all.flatMap(\.fileExtensions)),
        names: ImageFormat.names)

    /// The real Load Cat interactor for a provider.
    public static func makeLoadCatInteractor(provider: any CatProvider) -> LoadCatInteractor {
        LoadCatInteractor(provider: provider)
    }
}
