import CatSupport

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

/// A kind of provider, declared by its own file: its name, its line of help, the options
/// it takes, and how to make one. A provider is its file plus one line in
/// `CatProviders.all`; the command line's `--provider` values, help and checks read them.
public protocol CatProviderType: Sendable {
    /// Its name on the command line: "thecatapi".
    static var name: String { get }
    /// What it asks and where, for `load --help`; `imageFormats` names the formats catctl reads.
    static func help(imageFormats: String) -> String
    /// Why it cannot run without `--endpoint`, or nil when it has a default.
    static var endpointRequired: String? { get }
    /// It takes `--says` and `--tag` (`CatQuery`).
    static var takesQuery: Bool { get }
    /// Its endpoint is a folder (the command line's default: the bundled cats).
    static var readsFolder: Bool { get }
    static func make(_ setup: CatProviderSetup) -> any CatProvider
}

/// A provider that answers JSON: how it reads a cat from a reply (`CatReplies.parse`).
public protocol JSONCatProviderType: CatProviderType {
    /// `json`: the parsed reply; `base`: the reply's URL (relative URLs resolve against it);
    /// `root`: the service root for replies that give only an id.
    static func cat(fromReply json: Any, base: String, root: String?, bad: (String) -> NetworkError)
        throws(NetworkError) -> CatReference
}

/// What a provider is made from: the command line's choices.
public struct CatProviderSetup: Sendable {
    /// A URL (a folder for a folder provider); nil for the provider's default.
    public var endpoint: String?
    public var apiKey: String?
    public var query: CatQuery
    public var client: HTTPClient
    public var limits: ProviderLimits
    public var formats: CatImageFormats
}

/// One of `CatProviders.all`, as the command line names it.
public struct CatProviderKind: Sendable, Equatable, CustomStringConvertible {
    public let type: any CatProviderType.Type

    public init(_ type: any CatProviderType.Type) { self.type = type }

    /// The provider called `name`, or nil.
    public init?(name: String) {
        guard let type = CatProviders.all.first(where: { $0.name == name.lowercased() }) else { return nil }
        self.type = type
    }

    public static var all: [CatProviderKind] { CatProviders.all.map(CatProviderKind.init) }
    /// The first of the list.
    public static var `default`: CatProviderKind { all[0] }

    public var name: String { type.name }
    public var description: String { name }
    public var endpointRequired: String? { type.endpointRequired }
    public var takesQuery: Bool { type.takesQuery }
    public var readsFolder: Bool { type.readsFolder }
    public func help(imageFormats: String) -> String { type.help(imageFormats: imageFormats) }

    public static func == (a: CatProviderKind, b: CatProviderKind) -> Bool { a.name == b.name }
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
    /// The providers, the default first: each is its file plus its line here.
    public static let all: [any CatProviderType.Type] = [
        TheCatAPIProvider.self,
        CataasProvider.self,
        RandomCatProvider.self,
        FolderProvider.self,
    ]

    /// `endpoint`: a URL (a folder for `folder`); nil for the provider's default.
    public static func make(
        _ kind: CatProviderKind, endpoint: String?, apiKey: String?, query: CatQuery = CatQuery(), client: HTTPClient,
        limits: ProviderLimits = ProviderLimits(), formats: CatImageFormats
    ) -> any CatProvider {
        kind.type.make(
            CatProviderSetup(
                endpoint: endpoint, apiKey: apiKey, query: query, client: client, limits: limits, formats: formats))
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
        guard let parsed = JSONReply.parse(body) else {
            throw bad("the reply is not JSON" + (contentType.map { " (\($0))" } ?? ""))
        }
        let json = CatProviders.all.lazy.compactMap { $0 as? any JSONCatProviderType.Type }
        guard let type = json.first(where: { $0.name == provider }) else { throw bad("unknown provider") }
        return try type.cat(fromReply: parsed, base: base, root: root, bad: bad)
    }

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
