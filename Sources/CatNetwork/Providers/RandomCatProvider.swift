/// The original app's random.cat shape: `{"file": URL}`. random.cat itself has been down
/// since 2023, so there is no default: the endpoint is a server that still answers so.
struct RandomCatProvider: HTTPCatProvider {
    let name = "randomcat"
    let endpoint: String
    let client: HTTPClient
    let limits: ProviderLimits
    let formats: CatImageFormats

    init(endpoint: String?, client: HTTPClient, limits: ProviderLimits, formats: CatImageFormats) {
        self.endpoint = endpoint ?? ""  // the command line insists on --endpoint
        self.client = client
        self.limits = limits
        self.formats = formats
    }

    var requestURL: String { endpoint }
}
