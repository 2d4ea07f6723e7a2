import FilterCore
import Testing

@Suite("Filter specs")
struct FilterSpecTests {
    @Test func registryHasThePhotoEffectsThenW3C() {
        #expect(
            FilterRegistry.names == [
                "mono", "sepia", "invert", "chrome", "transfer", "process", "noir", "instant",
                "fade", "grayscale", "saturate", "hue-rotate", "brightness", "contrast",
                "blur", "sharpen", "vignette", "convolve",
                "resize", "cover", "crop", "rotate", "flip", "flop", "caption", "caption-top", "caption-bottom",
                "cutout", "sticker", "portrait",
            ])
        for f in FilterRegistry.all { #expect(!f.description.isEmpty) }
        #expect(
            ["mono", "sepia", "invert", "chrome", "transfer", "process", "noir", "instant", "fade"]
                == Array(FilterRegistry.names.prefix(9)))
    }

    @Test func values() throws {
        #expect(try Filter(parsing: "sepia").value == 1)
        #expect(try Filter(parsing: "sepia:0.6").value == 0.6)
        #expect(try Filter(parsing: "sepia:60%").value == 0.6)
        #expect(try Filter(parsing: "sepia:2").value == 1)  // clamped, as W3C says
        #expect(try Filter(parsing: "saturate:2").value == 2)
        #expect(try Filter(parsing: "hue-rotate:-30").value == -30)
        #expect(try Filter(parsing: "hue-rotate:0.25turn").value == 90)
        #expect(try Filter(parsing: "hue-rotate:100grad").value == 90)
        #expect(abs(try Filter(parsing: "hue-rotate:3.14159265rad").value! - 180) < 1e-6)
        #expect(try Filter(parsing: "mono").value == nil)
        #expect(try Filter(parsing: "SEPIA").definition.name == "sepia")
        #expect(try Filter(parsing: "sepia:0.6").spec == "sepia:0.6")
        // A value starting with a combining mark: ":" and the mark are one Character.
        #expect(try Filter(parsing: "caption:\u{301}a").definition.name == "caption")
    }

    @Test(
        "bad values name the filter and the usage",
        arguments: [
            "sepia:abc", "sepia:-1", "sepia:", "saturate:nan", "contrast:inf", "brightness:1e999",
            "hue-rotate:90px", "mono:1", "invert:0x10", "sepia:1:2",
        ])
    func badValue(_ spec: String) {
        do {
            _ = try Filter(parsing: spec)
            Issue.record("\(spec) was accepted")
        } catch {
            guard case .badValue(let filter, _, _) = error else { Issue.record("\(error)"); return }
            #expect(spec.lowercased().hasPrefix(filter))
            #expect(error.description.contains("usage: \(filter)"))
        }
    }

    @Test func unknownFilterListsTheValidNames() {
        #expect(throws: FilterError.unknownFilter("blurry")) { try FilterChain(specs: ["sepia", "blurry"]) }
        let message = FilterError.unknownFilter("blurry").description
        #expect(message.contains("'blurry'"))
        for name in FilterRegistry.names { #expect(message.contains(name)) }
        #expect(throws: FilterError.unknownFilter("")) { try Filter(parsing: "") }
    }
}
