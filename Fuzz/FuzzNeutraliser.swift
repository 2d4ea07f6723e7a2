import CatImageIO
import CatSupport
// libFuzzer target: the neutraliser. Whatever the text (as UTF-8 with repairs, and as a
// file name's bytes), what a human view prints holds no control byte, and what a JSON
// view prints holds no raw control and still decodes to the text.
import Foundation
import TerminalUI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNeutraliser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    for text in [String(decoding: bytes, as: UTF8.self), FileNames.decode(bytes)] {
        let shown = ForeignText.visible(text)
        for scalar in shown.unicodeScalars {
            precondition(
                !ForeignText.isControl(scalar) && FileNames.rawByte(scalar) == nil,
                "U+\(String(scalar.value, radix: 16)) came out of the neutraliser")
        }
        for byte in shown.utf8 { precondition(byte >= 0x20 && byte != 0x7F, "control byte \(byte) came out") }
        let json = JSONValue.string(text).encoded
        for byte in json.utf8 { precondition(byte >= 0x20 && byte != 0x7F, "control byte \(byte) in JSON") }
        precondition(!json.unicodeScalars.contains(where: ForeignText.isControl), "raw control in JSON")
        let decoded = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
        let expected = String(text.unicodeScalars.map { FileNames.rawByte($0) != nil ? "\u{FFFD}" : Character($0) })
        precondition(decoded == expected, "JSON does not give the text back")
    }
    return 0
}
