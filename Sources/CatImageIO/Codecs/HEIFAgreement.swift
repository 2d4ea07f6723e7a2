internal import CHEIFShim

/// The HEIF/AVIF pre-scan against libheif's and libavif's own reading of the same bytes
/// (CHEIFShim/heif_agreement.c): the primary, its size, thumbnails and metadata items,
/// every buffer a decode of it pushes to a codec, and a sequence's frames. Run by the
/// heif-agreement fuzz target on anything and by a test on every fixture; a disagreement
/// is a place where the scan checks other bytes than the libraries decode.
package enum HEIFAgreement: Equatable, Sendable {
    case agree
    /// The scan refuses the file, or neither library can read it.
    case nothingToCompare
    case disagree(String)

    package static func check(_ bytes: [UInt8], maxPixels: Int, maxFrames: Int) -> HEIFAgreement {
        var why = [CChar](repeating: 0, count: 512)
        let rc = bytes.withUnsafeBufferPointer { data in
            ch_agreement(
                data.baseAddress, data.count, UInt64(max(1, maxPixels)), UInt32(max(1, maxFrames)), &why, why.count)
        }
        switch rc {
        case 0: return .agree
        case 1: return .disagree(String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        default: return .nothingToCompare
        }
    }
}
