/// The original app's random.cat shape: `{"file": URL}`.
struct RandomCatProvider: HTTPCatProvider {
    static let defaultEndpoint = "https://aws.random.cat/meow"

    let name = "randomcat"
    let endpoint: String
    let client: HTTPClient
    let limits: ProviderLimits

    init(endpoint: String?, client: HTTPClient, limits: ProviderLimits) {
        self.endpoint = endpoint ?? Self.defaultEndpoint
        self.client = client
        self.limits = limits
    }

    var requestURL: String { endpoint }
}
