/// https://cataas.com: the service root; asks `/cat?json=true` (or `/cat/TAG`,
/// `/cat/says/TEXT`, `/cat/TAG/says/TEXT`) for `{"_id"|"id", "url" (absolute or relative),
/// "mimetype", "tags"}`; a reply with no `url` means `<root>/cat/<id>`.
extension CatProviderKind {
    public static let cataas = CatProviderKind(CataasProvider.self)
}

struct CataasProvider: HTTPCatProvider, JSONCatProviderType {
    static let defaultRoot = "https://cataas.com"
    static let name = "cataas"
    static func help(imageFormats: String) -> String {
        "<root>/cat?json=true (root \(defaultRoot)), /cat/TAG with --tag, /cat/says/TEXT with --says; "
            + "a reply with no url means <root>/cat/<id>."
    }
    static let endpointRequired: String? = nil
    static let takesQuery = true
    static let readsFolder = false

    static func make(_ setup: CatProviderSetup) -> any CatProvider {
        CataasProvider(
            root: setup.endpoint, query: setup.query, client: setup.client, limits: setup.limits,
            formats: setup.formats)
    }

    /// Seen in the wild: {"_id","url" (relative),...}, {"id","url" (absolute),...} and
    /// {"_id","mimetype","tags"} with no URL at all: then the image is <root>/cat/<id>.
    static func cat(fromReply json: Any, base: String, root: String?, bad: (String) -> NetworkError)
        throws(NetworkError) -> CatReference
    {
        guard let reply = json as? [String: Any] else { throw bad("expected a JSON object") }
        let id = CatReplies.text(reply["id"]) ?? CatReplies.text(reply["_id"])
        var url = reply["url"]
        if url == nil, let id {
            let path = "/cat/" + id.percentEncodedPathSegment
            url = root.map { $0 + path } ?? path
        }
        return CatReference(
            provider: name, id: id, url: try CatReplies.imageURL(url, base: base, bad: bad),
            width: CatReplies.dimension(reply["width"]), height: CatReplies.dimension(reply["height"]))
    }

    var name: String { Self.name }
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
            "/" + text.percentEncodedPathSegment
        }
        return root + "/cat" + (query.tag.map(segment) ?? "") + (query.says.map { "/says" + segment($0) } ?? "")
            + "?json=true"
    }
}
