/// https://thecatapi.com: `[{"id","url","width","height"}]`; optional key in `x-api-key`.
struct TheCatAPIProvider: HTTPCatProvider {
    static let defaultEndpoint = "https://api.thecatapi.com/v1/images/search"

    let name = "thecatapi"
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
