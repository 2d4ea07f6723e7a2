/// Builds scenes: view + presenter + interactor, wired. The commands call this and
/// nothing else of a scene's insides.
@MainActor
public enum Router {
    public static func makeEditCat(view: any EditCatView,
                                   interactor: any EditCatInteractorInput = EditCatInteractor()) -> EditCatPresenter {
        EditCatPresenter(view: view, interactor: interactor)
    }
}
