/// https://cataas.com: the service root; asks `/cat?json=true` (or `/cat/TAG`,
/// `/cat/says/TEXT`, `/cat/TAG/says/TEXT`) for `{"_id"|"id", "url" (absolute or relative),
/// "mimetype", "tags"}`; a reply with no `url` means `<root>/cat/<id>`.
struct CataasProvider: HTTPCatProvider {
    static let defaultRoot = "https://cataas.com"

    let name = "cataas"
    let root: String
    let query: CatQuery
    let client: HTTPClient
    let limits: ProviderLimits
    let formats: CatImageFormats

    init(root: String?, query: CatQuery, client: HTTPClient, limits: ProviderLimits, formats: CatImageFormats) {
        var root = root ?? Self.defaultRoot
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
        self.query = query
        self.client = client
        self.limits = limits
        self.formats = formats
    }

    var imageRoot: String? { root }

    var requestURL: String {
        func segment(_ text: String) -> String {
            "/" + (text.addingPercentEncoding(withAllowedCharacters: CatReplies.pathSegment) ?? text)
        }
        return root + "/cat" + (query.tag.map(segment) ?? "") + (query.says.map { "/says" + segment($0) } ?? "")
            + "?json=true"
    }
}
