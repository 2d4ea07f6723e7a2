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

    func locateCat() async throws -> CatReference {
        guard let reply = try await fetchJSON(endpoint) as? [String: Any] else {
            throw bad(endpoint, "expected a JSON object with \"file\"")
        }
        let url = try imageURL(reply["file"], base: endpoint, replyURL: endpoint)
        let id = url.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) }
        return CatReference(provider: name, id: id, url: url)
    }
}
