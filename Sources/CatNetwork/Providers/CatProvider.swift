import Foundation

/// Where a cat is: what the provider told us about it.
public struct CatReference: Sendable, Equatable {
    public let provider: String
    public let id: String?
    /// An http(s) URL, or a file path for the folder provider.
    public let url: String
    public let width: Int?
    public let height: Int?
    /// The cat's breed, when the reply names one (TheCatAPI's `breeds`).
    public let breed: CatBreed?

    public init(
        provider: String, id: String?, url: String, width: Int? = nil, height: Int? = nil,
        breed: CatBreed? = nil
    ) {
        self.provider = provider
        self.id = id
        self.url = url
        self.width = width
        self.height = height
        self.breed = breed
    }
}

/// A breed as TheCatAPI describes it.
public struct CatBreed: Sendable, Equatable {
    public let name: String
    /// "Active, Energetic, Independent", when given.
    public let temperament: String?

    public init(name: String, temperament: String? = nil) {
        self.name = name
        self.temperament = temperament
    }
}

/// A source of random cats.
public protocol CatProvider: Sendable {
    var name: String { get }
    /// Asks where the next cat is.
    func locateCat() async throws -> CatReference
    /// The cat's bytes (checked to be an image `CatImageFormats` recognises); `progress(received, expected)`.
    func fetchCat(_ cat: CatReference, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> [UInt8]
}

/// Limits on what a provider may send.
public struct ProviderLimits: Sendable {
    /// A cat is not 2 GiB: the download stops past this.
    public var maxImageBytes = 50 * 1024 * 1024
    /// An API reply is a few hundred bytes of JSON.
    public var maxJSONBytes = 1024 * 1024
    public init() {}
}

/// What counts as a cat picture. CatNetwork knows no image format: the image core
/// (CatImageIO's codec registry) hands this in, through the Router.
public struct CatImageFormats: Sendable {
    /// The format of a file starting with these bytes, or nil for none catctl reads.
    public let recognize: @Sendable ([UInt8]) -> String?
    /// Lower-case extensions of the files the folder provider picks from.
    public let fileExtensions: Set<String>
    /// "JPEG or PNG", for messages.
    public let names: String

    public init(recognize: @escaping @Sendable ([UInt8]) -> String?, fileExtensions: Set<String>, names: String) {
        self.recognize = recognize
        self.fileExtensions = fileExtensions
        self.names = names
    }

    /// Throws notAnImage unless `body` is a picture.
    func check(_ body: [UInt8], url: String, contentType: String?) throws(NetworkError) {
        guard recognize(Array(body.prefix(16))) != nil else {
            throw .notAnImage(url: url, contentType: contentType, head: Array(body.prefix(4)), expected: names)
        }
    }
}

/// The providers of docs/CLI.md.
public enum CatProviderKind: String, Sendable, CaseIterable {
    case thecatapi, cataas, randomcat, folder

    /// random.cat has been down since 2023: the provider stays for servers that answer its
    /// shape, but has no public default.
    public var needsEndpoint: Bool { self == .randomcat }
}

/// What kind of cat to ask for, where the provider can say (cataas).
public struct CatQuery: Sendable, Equatable {
    /// A caption drawn by the service (`/cat/says/TEXT`).
    public var says: String?
    /// A tag (`/cat/TAG`).
    public var tag: String?

    public init(says: String? = nil, tag: String? = nil) {
        self.says = says
        self.tag = tag
    }
}

public enum CatProviders {
    /// `endpoint`: a URL (a folder for `folder`); nil for the provider's default.
    public static func make(
        _ kind: CatProviderKind, endpoint: String?, apiKey: String?, query: CatQuery = CatQuery(), client: HTTPClient,
        limits: ProviderLimits = ProviderLimits(), formats: CatImageFormats
    ) -> any CatProvider {
        switch kind {
        case .thecatapi:
            return TheCatAPIProvider(
                endpoint: endpoint, apiKey: apiKey, client: client, limits: limits, formats: formats)
        case .cataas:
            return CataasProvider(root: endpoint, query: query, client: client, limits: limits, formats: formats)
        case .randomcat: return RandomCatProvider(endpoint: endpoint, client: client, limits: limits, formats: formats)
        case .folder:
            // The command line gives the bundled folder as the default endpoint.
            return FolderProvider(
                directory: endpoint ?? "Resources/cats", maxBytes: limits.maxImageBytes, formats: formats)
        }
    }
}

/// Shared by the HTTP providers: ask `requestURL` for JSON, read a cat from it
/// (CatReplies), download the image.
protocol HTTPCatProvider: CatProvider {
    var client: HTTPClient { get }
    var limits: ProviderLimits { get }
    var formats: CatImageFormats { get }
    /// Where an image is when a reply gives only its id (cataas); nil when it must give a URL.
    var imageRoot: String? { get }
    var requestURL: String { get }
    var headers: [String] { get }
}

extension HTTPCatProvider {
    var headers: [String] { [] }

    var imageRoot: String? { nil }

    public func locateCat() async throws -> CatReference {
        let reply = try await client.get(requestURL, headers: headers, maxBytes: limits.maxJSONBytes)
        return try CatReplies.parse(
            provider: name, body: reply.body, contentType: reply.contentType, replyURL: reply.url, root: imageRoot)
    }

    public func fetchCat(_ cat: CatReference, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws
        -> [UInt8]
    {
        try HTTPClient.checkScheme(cat.url)
        let reply = try await client.get(cat.url, maxBytes: limits.maxImageBytes, progress: progress)
        try formats.check(reply.body, url: reply.url, contentType: reply.contentType)
        return reply.body
    }
}

/// Reading a cat out of a provider's JSON reply: pure functions of the bytes (fuzzed in
/// Fuzz/). Whatever the bytes, the result is a CatReference with an http(s) URL or a
/// NetworkError.
public enum CatReplies {
    /// `replyURL`: where the reply came from (after redirects): relative URLs in it are
    /// resolved against it, as RFC 3986 says. `root`: cataas's service root, for replies
    /// that give only an id (the image is then `<root>/cat/<id>`).
    public static func parse(
        provider: String, body: [UInt8], contentType: String?,
        replyURL: String, root: String? = nil
    ) throws(NetworkError) -> CatReference {
        let base = replyURL
        func bad(_ reason: String) -> NetworkError { .badReply(provider: provider, url: replyURL, reason: reason) }
        guard let json = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else {
            throw bad("the reply is not JSON" + (contentType.map { " (\($0))" } ?? ""))
        }
        switch provider {
        case "thecatapi":
            guard let list = json as? [Any], let first = list.first as? [String: Any] else {
                throw bad("expected a JSON array of cats")
            }
            return CatReference(
                provider: provider, id: first["id"] as? String,
                url: try imageURL(first["url"], base: base, bad: bad),
                width: dimension(first["width"]), height: dimension(first["height"]),
                breed: breed((first["breeds"] as? [Any])?.first))
        case "cataas":
            // Seen in the wild: {"_id","url" (relative),...}, {"id","url" (absolute),...} and
            // {"_id","mimetype","tags"} with no URL at all: then the image is <root>/cat/<id>.
            guard let reply = json as? [String: Any] else { throw bad("expected a JSON object") }
            let id = text(reply["id"]) ?? text(reply["_id"])
            var url = reply["url"]
            if url == nil, let id {
                let path = "/cat/" + (id.addingPercentEncoding(withAllowedCharacters: pathSegment) ?? id)
                url = root.map { $0 + path } ?? path
            }
            return CatReference(
                provider: provider, id: id, url: try imageURL(url, base: base, bad: bad),
                width: dimension(reply["width"]), height: dimension(reply["height"]))
        case "randomcat":
            guard let reply = json as? [String: Any] else { throw bad("expected a JSON object with \"file\"") }
            let url = try imageURL(reply["file"], base: base, bad: bad)
            let id = url.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) }
            return CatReference(provider: provider, id: id, url: url)
        default:
            throw bad("unknown provider")
        }
    }

    /// The characters a path segment keeps as they are (RFC 3986 unreserved).
    public static let pathSegment = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A non-empty string of sane length, else nil.
    static func text(_ value: Any?) -> String? {
        guard let s = value as? String, !s.isEmpty, s.utf8.count <= 1024 else { return nil }
        return s
    }

    /// The first of TheCatAPI's `breeds`, when it has a name.
    static func breed(_ value: Any?) -> CatBreed? {
        guard let entry = value as? [String: Any], let name = text(entry["name"]) else { return nil }
        return CatBreed(name: name, temperament: text(entry["temperament"]))
    }

    /// A size in pixels: a positive whole number that fits, else nil.
    static func dimension(_ value: Any?) -> Int? {
        guard let n = value as? Int, n > 0, n <= 1_000_000 else { return nil }
        return n
    }

    /// Whether `reference` starts with a scheme (RFC 3986 3.1, 4.2): letters, digits, "+",
    /// "-", "." and a ":" before any "/", "?" or "#". Else it is a relative reference, even
    /// when its query holds "://" (`/img.png?from=http://x/`).
    static func hasScheme(_ reference: String) -> Bool {
        guard let end = reference.firstIndex(where: { ":/?#".contains($0) }), reference[end] == ":",
            let first = reference.first, first.isASCII, first.isLetter
        else { return false }
        return reference[..<end].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// A URL string from a reply, made absolute against `base`, http(s) only.
    static func imageURL(_ value: Any?, base: String, bad: (String) -> NetworkError) throws(NetworkError) -> String {
        guard let text = value as? String, !text.isEmpty, text.utf8.count <= 8192 else {
            throw bad("no image URL in the reply")
        }
        let absolute: String
        if hasScheme(text) {
            absolute = text
        } else if let resolved = URL(string: text, relativeTo: URL(string: base)) {
            absolute = resolved.absoluteString
        } else {
            throw .invalidURL(text)
        }
        try HTTPClient.checkScheme(absolute)
        return absolute
    }
}
