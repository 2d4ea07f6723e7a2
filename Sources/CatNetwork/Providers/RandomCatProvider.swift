/// The original app's random.cat shape: `{"file": URL}`. random.cat itself has been down
/// since 2023, so there is no default: the endpoint is a server that still answers so.
extension CatProviderKind {
    public static let randomcat = CatProviderKind(RandomCatProvider.self)
}

struct RandomCatProvider: HTTPCatProvider, JSONCatProviderType {
    static let name = "randomcat"
    static func help(imageFormats: String) -> String {
        "a server answering {\"file\": URL}; --endpoint is required (random.cat is gone)."
    }
    static let endpointRequired: String? =
        "has no public server any more (random.cat has been down since 2023): "
        + "give --endpoint URL of a server that answers {\"file\": URL}"
    static let takesQuery = false
    static let readsFolder = false

    static func make(_ setup: CatProviderSetup) -> any CatProvider {
        RandomCatProvider(endpoint: setup.endpoint, client: setup.client, limits: setup.limits, formats: setup.formats)
    }

    static func cat(fromReply json: Any, base: String, root: String?, bad: (String) -> NetworkError)
        throws(NetworkError) -> CatReference
    {
        guard let reply = json as? [String: Any] else { throw bad("expected a JSON object with \"file\"") }
        let url = try CatReplies.imageURL(reply["file"], base: base, bad: bad)
        let id = url.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) }
        return CatReference(provider: name, id: id, url: url)
    }

    var name: String { Self.name }
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
