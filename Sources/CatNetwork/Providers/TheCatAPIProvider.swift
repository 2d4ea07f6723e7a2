/// https://thecatapi.com: `[{"id","url","width","height"}]`; optional key in `x-api-key`.
struct TheCatAPIProvider: HTTPCatProvider {
    static let defaultEndpoint = "https://api.thecatapi.com/v1/images/search"

    let name = "thecatapi"
    let endpoint: String
    let apiKey: String?
    let client: HTTPClient
    let limits: ProviderLimits

    init(endpoint: String?, apiKey: String?, client: HTTPClient, limits: ProviderLimits) {
        let base = endpoint ?? Self.defaultEndpoint
        // Ask for the two formats catctl decodes, unless the endpoint already says.
        self.endpoint = base.contains("mime_types=") ? base : base + (base.contains("?") ? "&" : "?") + "mime_types=jpg,png"
        self.apiKey = apiKey
        self.client = client
        self.limits = limits
    }

    func locateCat() async throws -> CatReference {
        let headers = apiKey.map { ["x-api-key: \($0)"] } ?? []
        let json = try await fetchJSON(endpoint, headers: headers)
        guard let list = json as? [Any], let first = list.first as? [String: Any] else {
            throw bad(endpoint, "expected a JSON array of cats")
        }
        return CatReference(provider: name, id: first["id"] as? String,
                            url: try imageURL(first["url"], base: endpoint, replyURL: endpoint),
                            width: first["width"] as? Int, height: first["height"] as? Int)
    }
}
