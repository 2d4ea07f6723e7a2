import CatImageIO
import CatScenes
import CatSupport

/// A JSON value with object keys kept in the order written, so JSON lines read the
/// way docs/CLI.md documents them.
public indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.encoded == b.encoded }

    /// Compact JSON text (RFC 8259).
    public var encoded: String {
        var out = ""
        encode(into: &out)
        return out
    }

    private func encode(into out: inout String) {
        switch self {
        case let .string(s): JSONValue.quote(s, into: &out)
        case let .int(i): out += String(i)
        case let .double(d):
            out += d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)) : "null"
        case let .bool(b): out += b ? "true" : "false"
        case .null: out += "null"
        case let .array(items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.encode(into: &out)
            }
            out += "]"
        case let .object(pairs):
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSONValue.quote(key, into: &out)
                out += ":"
                value.encode(into: &out)
            }
            out += "}"
        }
    }

    /// RFC 8259 quoting, and more: every control (C0, DEL, C1), the bidi controls and
    /// U+2028/U+2029 as `\uXXXX` (ForeignText.isControl), so no JSON line ever holds a
    /// raw control; a byte of a file name that is not UTF-8 as U+FFFD.
    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where FileNames.rawByte(scalar) != nil: out += "\\ufffd"
            case _ where ForeignText.isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Where every `--json` view writes: one JSON object per line on stdout, and on stderr the
/// human sentence of a failure and any note, neutralised. Made from a `Console` by each of
/// the four JSON views, and by the command line's usage-error path, so all share their
/// output and error wording.
public struct JSONLineWriter: Sendable {
    let stdout: any TextSink
    let stderr: any TextSink
    let wording: FailureWording

    public init(console: Console, wording: FailureWording = FailureWording()) {
        stdout = console.stdout
        stderr = console.stderr
        self.wording = wording
    }

    public func emit(_ pairs: [(String, JSONValue)]) {
        stdout.write(JSONValue.object(pairs).encoded + "\n")
    }

    /// The `{"event":"error",...,"code":..,"message":..}` line every command ends with on
    /// failure (`context`, such as the input it names, between the event and the code), and
    /// the message as a sentence on stderr.
    public func emitError(code: Int32, message: String, context: [(String, JSONValue)] = []) {
        stderr.write("catctl: \(ForeignText.visible(message))\n")
        emit([("event", .string("error"))] + context + [("code", .int(Int(code))), ("message", .string(message))])
    }

    /// A scene's failure, worded with the command line's hints.
    public func emitFailure(_ failure: SceneFailure, context: [(String, JSONValue)] = []) {
        emitError(code: failure.status.rawValue, message: wording.message(failure), context: context)
    }

    /// A note for the person running the command, on stderr only.
    public func note(_ text: String) {
        stderr.write("note: \(ForeignText.visible(text))\n")
    }
}
