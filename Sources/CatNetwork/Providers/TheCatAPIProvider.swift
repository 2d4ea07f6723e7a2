/// https://thecatapi.com: `[{"id","url","width","height"}]`; optional key in `x-api-key`.
extension CatProviderKind {
    public static let thecatapi = CatProviderKind(TheCatAPIProvider.self)
}

struct TheCatAPIProvider: HTTPCatProvider, JSONCatProviderType {
    static let defaultEndpoint = "https://api.thecatapi.com/v1/images/search"
    static let name = "thecatapi"
    static func help(imageFormats: String) -> String {
        "\(defaultEndpoint); a key from --api-key or CATCTL_API_KEY goes in x-api-key, never printed; "
            + "the breed is shown when named."
    }
    static let endpointRequired: String? = nil
    static let takesQuery = false
    static let readsFolder = false

    static func make(_ setup: CatProviderSetup) -> any CatProvider {
        TheCatAPIProvider(
            endpoint: setup.endpoint, apiKey: setup.apiKey, client: setup.client, limits: setup.limits,
            formats: setup.formats)
    }

    static func cat(fromReply json: Any, base: String, root: String?, bad: (String) -> NetworkError)
        throws(NetworkError) -> CatReference
    {
        guard let list = json as? [Any], let first = list.first as? [String: Any] else {
            throw bad("expected a JSON array of cats")
        }
        return CatReference(
            provider: name, id: first["id"] as? String,
            url: try CatReplies.imageURL(first["url"], base: base, bad: bad),
            width: CatReplies.dimension(first["width"]), height: CatReplies.dimension(first["height"]),
            breed: CatReplies.breed((first["breeds"] as? [Any])?.first))
    }

    var name: String { Self.name }
    let endpoint: String
    let apiKey: String?
    let client: HTTPClient
    let limits: ProviderLimits
    let formats: CatImageFormats

    init(endpoint: String?, apiKey: String?, client: HTTPClient, limits: ProviderLimits, formats: CatImageFormats) {
        // No mime_types filter: catctl decodes all TheCatAPI serves (JPEG, PNG, GIF).
        self.endpoint = endpoint ?? Self.defaultEndpoint
        self.apiKey = apiKey
        self.client = client
        self.limits = limits
        self.formats = formats
    }

    var requestURL: String { endpoint }
    var headers: [String] { apiKey.map { ["x-api-key: \($0)"] } ?? [] }
}
