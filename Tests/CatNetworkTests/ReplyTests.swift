import CatNetwork
import TestSupport
import Testing

/// CatReplies on odd and hostile replies; the fixtures under fuzz/ are inputs the fuzzers
/// found (Fuzz/run.sh), kept as regression tests.
@Suite("Cat API replies")
struct ReplyTests {
    func parse(_ provider: String, _ text: String) throws(NetworkError) -> CatReference {
        try CatReplies.parse(
            provider: provider, body: Array(text.utf8), contentType: nil,
            replyURL: "https://cats.example/api/meow?x=1")
    }

    @Test func fuzzFoundMalformedHTTPS() throws {
        // {"file":"https:/tps://purrpg"} was taken for an https URL.
        let body = try Fixtures.bytes("fuzz/json-malformed-https.json")
        #expect(throws: NetworkError.invalidURL("https:/tps://purrpg")) {
            try CatReplies.parse(provider: "randomcat", body: body, contentType: nil, replyURL: "https://x")
        }
    }

    @Test func schemes() throws {
        #expect(try parse("randomcat", #"{"file":"HTTPS://cats.example/a.jpg"}"#).url == "HTTPS://cats.example/a.jpg")
        // Relative to the reply's URL (RFC 3986): its last segment and query are replaced.
        #expect(try parse("randomcat", #"{"file":"img/a.png"}"#).url == "https://cats.example/api/img/a.png")
        #expect(try parse("randomcat", #"{"file":"../a.png"}"#).url == "https://cats.example/a.png")
        #expect(try parse("randomcat", #"{"file":"/a.png"}"#).url == "https://cats.example/a.png")
        for bad in [
            "file:///etc/passwd", "ftp://x/y", "gopher://x", "javascript:alert(1)", "data:image/png;base64,AAAA",
        ] {
            #expect(throws: NetworkError.unsupportedScheme(url: bad)) { try parse("randomcat", #"{"file":"\#(bad)"}"#) }
        }
        // A scheme only before the first "/", "?" or "#" (RFC 3986 3.1, 4.2).
        #expect(
            try parse("randomcat", #"{"file":"/a.png?u=http://x/"}"#).url == "https://cats.example/a.png?u=http://x/")
        #expect(try parse("randomcat", #"{"file":"a/b:c.png"}"#).url == "https://cats.example/api/a/b:c.png")
        #expect(try parse("randomcat", #"{"file":"a.png#x://y"}"#).url == "https://cats.example/api/a.png#x://y")
        for bad in ["http:x", "https:/x://y", "https:"] {
            #expect(throws: NetworkError.invalidURL(bad)) { try parse("randomcat", #"{"file":"\#(bad)"}"#) }
        }
    }

    @Test func cataasWithoutAURL() throws {
        let body = Array(#"{"tags":[],"mimetype":"image/jpeg","_id":"a b/c"}"#.utf8)
        let cat = try CatReplies.parse(
            provider: "cataas", body: body, contentType: nil, replyURL: "https://c.example/x/cat?json=true",
            root: "https://c.example/x")
        #expect(cat.id == "a b/c" && cat.url == "https://c.example/x/cat/a%20b%2Fc")
        // With no root, relative to the reply's host.
        #expect(try parse("cataas", #"{"_id":"q"}"#).url == "https://cats.example/cat/q")
        #expect(throws: NetworkError.self) { try parse("cataas", #"{"mimetype":"image/jpeg"}"#) }
    }

    @Test func shapes() throws {
        let cat = try parse("thecatapi", #"[{"id":"a","url":"https://c/a.jpg","width":-5,"height":1e99}]"#)
        #expect(cat.width == nil && cat.height == nil, "nonsense sizes are dropped")
        #expect(throws: NetworkError.self) { try parse("thecatapi", "[]") }
        #expect(throws: NetworkError.self) { try parse("thecatapi", #"[{"url":42}]"#) }
        #expect(throws: NetworkError.self) { try parse("cataas", #""just a string""#) }
        #expect(throws: NetworkError.self) { try parse("cataas", String(repeating: "[", count: 100_000)) }
        #expect(throws: NetworkError.self) { try parse("randomcat", #"{"file":""}"#) }
        #expect(throws: NetworkError.self) { try parse("randomcat", "\u{0}\u{1}garbage") }
    }

    /// What FoundationEssentials' JSONDecoder hands the providers (JSONReply).
    @Test func jsonValues() throws {
        // A null member counts as absent: cataas then builds the URL from the id.
        #expect(try parse("cataas", #"{"_id":"q","url":null}"#).url == "https://cats.example/cat/q")
        // Whole numbers are sizes; fractions, strings, booleans and nulls are not.
        let sized = try parse("thecatapi", #"[{"url":"https://c/a.jpg","width":640,"height":480.0}]"#)
        #expect(sized.width == 640 && (sized.height == 480 || sized.height == nil))
        for bad in [#""640""#, "640.5", "true", "null"] {
            let cat = try parse("thecatapi", #"[{"url":"https://c/a.jpg","width":\#(bad)}]"#)
            #expect(cat.width == nil, "width \(bad)")
        }
        // Unicode escapes and nested arrays (a null among them) come through.
        let breed = try parse(
            "thecatapi", #"[{"url":"https://c/a.jpg","breeds":[{"name":"Sib\u00e9rien","x":[null,[1]]}]}]"#)
        #expect(breed.breed?.name == "Sibérien")
        // Deep but closed nesting is refused as "not JSON", without exhausting the stack.
        let deep = String(repeating: "[", count: 100_000) + "1" + String(repeating: "]", count: 100_000)
        #expect(throws: NetworkError.self) { try parse("thecatapi", deep) }
        #expect(throws: NetworkError.self) { try parse("thecatapi", #"[{"url":"https://c/a.jpg"}] x"#) }
    }

    /// A provider is its type, in one list: names, the default, what each takes.
    @Test func providersAreTypesInOneList() {
        #expect(CatProviderKind.all.map(\.name) == ["thecatapi", "cataas", "randomcat", "folder"])
        #expect(CatProviderKind.default == .thecatapi)
        #expect(CatProviderKind(name: "FOLDER") == .folder && CatProviderKind(name: "nope") == nil)
        #expect(CatProviderKind.all.filter(\.takesQuery) == [.cataas])
        #expect(CatProviderKind.all.filter { $0.endpointRequired != nil } == [.randomcat])
        #expect(CatProviderKind.all.filter(\.readsFolder) == [.folder])
        // The folder provider reads no JSON: a reply for it is refused like an unknown provider's.
        for provider in ["folder", "nope"] {
            #expect(throws: NetworkError.self) {
                try CatReplies.parse(
                    provider: provider, body: Array("{}".utf8), contentType: nil, replyURL: "https://x")
            }
        }
    }
}
