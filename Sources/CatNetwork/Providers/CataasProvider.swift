/// https://cataas.com: the service root; asks `/cat?json=true` for
/// `{"_id"|"id", "url" (absolute or relative), "mimetype", "tags"}`.
struct CataasProvider: HTTPCatProvider {
    static let defaultRoot = "https://cataas.com"

    let name = "cataas"
    let root: String
    let client: HTTPClient
    let limits: ProviderLimits
    let formats: CatImageFormats

    init(root: String?, client: HTTPClient, limits: ProviderLimits, formats: CatImageFormats) {
        var root = root ?? Self.defaultRoot
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
        self.client = client
        self.limits = limits
        self.formats = formats
    }

    var requestURL: String { root + "/cat?json=true" }
}
