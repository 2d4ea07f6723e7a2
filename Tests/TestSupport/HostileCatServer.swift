import Foundation

/// A cat API on 127.0.0.1 that puts every class of control character into every field it
/// answers with: ids, breed names, temperaments, image URLs, Content-Type headers.
public enum HostileCatServer {
    /// Every scalar a terminal may act on: C0 (NUL included), DEL, C1, the bidi controls,
    /// the line and paragraph separators.
    public static let controls: [Unicode.Scalar] =
        (0x00...0x1F).map { Unicode.Scalar(UInt8($0)) } + (0x7F...0x9F).map { Unicode.Scalar(UInt8($0)) }
        + [
            0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068,
            0x2069,
        ]
        .map { Unicode.Scalar(UInt32($0))! }

    /// What an attacker would send: set the title, write the clipboard (OSC 52), clear the
    /// screen, a CSI in its one-byte C1 form, and then every control with a marker after it.
    public static let payload: String = {
        var text = "cat\u{1B}]0;PWNED-TITLE\u{07}\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}[2J\u{9B}31m"
        for scalar in controls { text += "\(String(scalar))x" }
        return text + "end"
    }()

    /// `text` as a JSON string literal, every non-ASCII or control scalar as \uXXXX.
    public static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value >= 0x7F:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    public static func start() throws -> TestHTTPServer {
        let p = jsonString(payload)
        var routes: [String: TestHTTPServer.Handler] = [:]
        routes["/img/cat.jpg"] = { _, c in c.respond(contentType: "image/jpeg", body: CatServer.jpeg) }
        // Every text field of a good reply.
        routes["/fields"] = { _, c in
            c.respondJSON(
                #"[{"id":\#(p),"url":"/img/cat.jpg","width":97,"height":61,"breeds":[{"name":\#(p),"#
                    + #""temperament":\#(p)}]}]"#)
        }
        // An image URL that is not one: the error line quotes it.
        routes["/bad-url"] = { _, c in c.respondJSON(#"[{"id":"u","url":\#(jsonString("ht tp:" + payload))}]"#) }
        // A reply whose image is HTML with a Content-Type full of escapes: the error quotes it.
        routes["/page"] = { _, c in
            c.respond(
                contentType: "text/html\u{1B}]0;PWNED-TITLE\u{07}\u{1B}[2J\u{08}\u{7F}",
                body: Array("<html>not a cat</html>".utf8))
        }
        routes["/content-type"] = { _, c in c.respondJSON(#"[{"id":\#(p),"url":"/page"}]"#) }
        // A relative URL whose query holds "://" (RFC 3986 4.2: still relative).
        routes["/query-url"] = { _, c in
            c.respondJSON(#"[{"id":"q","url":"/img/cat.jpg?from=http://example.invalid/x"}]"#)
        }
        // Always busy: with a Retry-After far beyond any wait catctl makes, and without one.
        routes["/busy-long"] = { _, c in
            c.respond(
                status: 503, contentType: "text/plain", body: Array("busy".utf8), headers: [("Retry-After", "100000")])
        }
        routes["/busy"] = { _, c in c.respond(status: 503, contentType: "text/plain", body: Array("busy".utf8)) }
        return try TestHTTPServer(routes: routes)
    }

    /// The scalars of `text` a terminal would act on ("\n" alone allowed, between lines).
    public static func rawControls(in text: String) -> [String] {
        text.unicodeScalars.filter { $0 != "\n" && controls.contains($0) }.map {
            String(format: "U+%04X", $0.value)
        }
    }
}
