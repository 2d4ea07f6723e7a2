/// What a file says about its pixels besides the pixels: kept from input to output in
/// every format pair, as libvips does by default. Each codec reads and writes its own
/// containers (JPEG APP1/APP2/COM, PNG iCCP/eXIf/iTXt, WebP ICCP/EXIF/XMP).
public struct ImageMetadata: Sendable, Equatable {
    /// An ICC profile for RGB data; profiles of other colour spaces are not carried (the
    /// pixels catctl writes are RGB: a CMYK file's profile was used to convert it).
    public var iccProfile: [UInt8]?
    /// EXIF as TIFF data (starting "II*\0" or "MM\0*"), without JPEG's "Exif\0\0" prefix.
    public var exif: [UInt8]?
    /// The XMP packet (UTF-8 XML).
    public var xmp: [UInt8]?
    /// A free-text comment (JPEG COM, PNG "Comment"); WebP and GIF output have no place for it.
    public var comment: [UInt8]?
    /// What the input had but was over the metadata budget and so left out, e.g. "EXIF
    /// (66.0 MB)": each becomes a note for the person (nothing else knows it was there).
    public var leftOut: [String]

    public static let none = ImageMetadata()

    /// The one budget of an ICC profile, an EXIF block, an XMP packet or PNG's text (8 MiB,
    /// CShimSupport's CS_METADATA_BUDGET): real print profiles are 0.5-3 MB; what is over
    /// it is left out of the output with a note, not the image.
    public static let budget = 8 << 20

    public init(
        iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil, xmp: [UInt8]? = nil, comment: [UInt8]? = nil,
        leftOut: [String] = []
    ) {
        self.iccProfile = iccProfile.flatMap { Self.isRGBProfile($0) ? $0 : nil }
        self.exif = exif.flatMap(Self.tiffData)
        self.xmp = xmp.flatMap { $0.isEmpty ? nil : $0 }
        self.comment = comment.flatMap { $0.isEmpty ? nil : $0 }
        self.leftOut = leftOut
    }

    /// The notes of `leftOut` from a shim's three dropped sizes (0: nothing was dropped).
    public static func leftOut(icc: UInt64, exif: UInt64, xmp: UInt64) -> [String] {
        [("ICC profile", icc), ("EXIF", exif), ("XMP", xmp)].compactMap { name, bytes in
            bytes == 0 ? nil : "\(name) (\(String(printf: "%.1f", Double(bytes) / 1_000_000)) MB)"
        }
    }

    public var isEmpty: Bool { iccProfile == nil && exif == nil && xmp == nil && comment == nil }

    /// What an output keeps under `policy`.
    public func kept(by policy: MetadataPolicy) -> ImageMetadata {
        switch policy {
        case .keep: return self
        case .strip: return ImageMetadata(iccProfile: iccProfile)
        case .stripAll: return .none
        }
    }

    /// After the EXIF orientation has been applied to the pixels: the orientation tag says 1,
    /// so that no viewer turns the picture a second time.
    public func upright() -> ImageMetadata {
        guard var tiff = exif else { return self }
        ExifOrientation.reset(&tiff)
        var copy = self
        copy.exif = tiff
        return copy
    }

    /// The profile's data colour space (bytes 16–19 of its header) is RGB.
    static func isRGBProfile(_ profile: [UInt8]) -> Bool {
        profile.count >= 132 && profile[16..<20].elementsEqual("RGB ".utf8)
    }

    /// TIFF data from an EXIF block with or without the "Exif\0\0" prefix (files differ:
    /// some PNG and WebP writers keep the prefix); nil when it is not TIFF data.
    static func tiffData(_ block: [UInt8]) -> [UInt8]? {
        let tiff = block.starts(with: Array("Exif\0\0".utf8)) ? Array(block.dropFirst(6)) : block
        guard tiff.count >= 8, tiff.starts(with: [0x49, 0x49, 0x2A, 0]) || tiff.starts(with: [0x4D, 0x4D, 0, 0x2A])
        else { return nil }
        return tiff
    }
}

/// Which metadata an output keeps.
public enum MetadataPolicy: String, Sendable, CaseIterable {
    /// Everything: ICC profile, EXIF (orientation reset to 1), XMP, comment.
    case keep
    /// `--strip`: EXIF, XMP and comments dropped; the ICC profile kept, so colours do not change.
    case strip
    /// `--strip-all`: nothing kept, the profile neither (the pixels are then read as sRGB).
    case stripAll = "strip-all"
}
