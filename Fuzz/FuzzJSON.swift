// libFuzzer target: reading a cat out of the three providers' JSON replies.
import CatNetwork
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for provider in ["thecatapi", "cataas", "randomcat"] {
        if let cat = try? CatReplies.parse(
            provider: provider, body: bytes, contentType: nil,
            replyURL: "https://cats.example/api/v1/search?limit=1")
        {
            let scheme = cat.url.prefix(8).lowercased()  // schemes are case-insensitive (RFC 3986)
            precondition(
                scheme.hasPrefix("http://") || scheme.hasPrefix("https://"), "non-http URL accepted: \(cat.url)")
        }
    }
    return 0
}
