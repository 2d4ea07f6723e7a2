import CatNetwork

/// What a cat from a provider is called, in one place.
enum CatTitle {
    /// The views' title: "thecatapi cat abc, Bengal"; "cataas cat" without an id.
    static func title(provider: String, id: String?, breed: String?) -> String {
        (id.map { "\(provider) cat \($0)" } ?? "\(provider) cat") + (breed.map { ", \($0)" } ?? "")
    }

    /// The input's name in the Edit Cat scene it is handed to: "thecatapi cat abc", or its URL.
    static func editName(_ cat: CatReference) -> String {
        cat.id.map { "\(cat.provider) cat \($0)" } ?? cat.url
    }

    /// Its name in the decoder's messages: "cannot decode cat abc: …", or its URL.
    static func decodeName(_ cat: CatReference) -> String {
        cat.id.map { "cat \($0)" } ?? cat.url
    }
}
