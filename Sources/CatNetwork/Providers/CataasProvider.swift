/// https://cataas.com: the service root; asks `/cat?json=true` for
/// `{"_id"|"id", "url" (absolute or relative), "mimetype", "tags"}`.
struct CataasProvider: HTTPCatProvider {
    static let defaultRoot = "https://cataas.com"

    let name = "cataas"
    let root: String
    let client: HTTPClient
    let limits: ProviderLimits

    init(root: String?, client: HTTPClient, limits: ProviderLimits) {
        var root = root ?? Self.defaultRoot
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
        self.client = client
        self.limits = limits
    }

    func locateCat() async throws -> CatReference {
        let url = root + "/cat?json=true"
        guard let reply = try await fetchJSON(url) as? [String: Any] else { throw bad(url, "expected a JSON object") }
        let id = (reply["_id"] as? String) ?? (reply["id"] as? String)
        return CatReference(provider: name, id: id, url: try imageURL(reply["url"], base: root, replyURL: url),
                            width: reply["width"] as? Int, height: reply["height"] as? Int)
    }
}
