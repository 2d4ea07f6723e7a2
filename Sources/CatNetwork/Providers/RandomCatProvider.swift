/// The original app's random.cat shape: `{"file": URL}`.
struct RandomCatProvider: HTTPCatProvider {
    static let defaultEndpoint = "https://aws.random.cat/meow"

    let name = "randomcat"
    let endpoint: String
    let client: HTTPClient
    let limits: ProviderLimits
    let formats: CatImageFormats

    init(endpoint: String?, client: HTTPClient, limits: ProviderLimits, formats: CatImageFormats) {
        self.endpoint = endpoint ?? Self.defaultEndpoint
        self.client = client
        self.limits = limits
        self.formats = formats
    }

    var requestURL: String { endpoint }
}
