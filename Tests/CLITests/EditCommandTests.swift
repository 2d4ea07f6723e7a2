import CatImageIO
import FilterCore
import Foundation
import TestSupport
import Testing

/// End to end: the built `catctl` binary on fixtures; files and exit codes as docs/CLI.md says.
@Suite("catctl edit and filters, end to end")
struct EditCommandTests {
    let cat = Fixtures.path("jpeg/chelsea-420.jpg")

    @Test func binaryIsThere() throws {
        let executable = try #require(Catctl.executable, "build the catctl product first")
        #expect(FileManager.default.isExecutableFile(atPath: executable.path))
    }

    @Test func sepiaToPNGMatchesTheReference() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("sepia.png").path
        let result = try Catctl.run(["edit", "--filter", "sepia", cat, out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("saved \(out): 97x61, sepia, "))
        let written = try ImageDecoder.decode(try InputFile.read(out), name: out).pixels
        let expected = try FilterChain(specs: ["sepia"]).applyReference(
            to: try Fixtures.decode("jpeg/chelsea-420.jpg").pixels)
        #expect(written.packedRGBA() == expected.packedRGBA())
        #expect(Fixtures.contents(of: dir) == ["sepia.png"])
    }

    @Test func chainToJPEGWithJSON() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("o.jpeg").path
        let result = try Catctl.run([
            "edit", "--filter", "saturate:140%", "--filter", "hue-rotate:30deg",
            "--quality", "75", "--json", cat, out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let last = try #require(result.stdoutLines.last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(json["event"] as? String == "saved")
        #expect(json["input"] as? String == cat)
        #expect(json["output"] as? String == out)
        #expect(json["width"] as? Int == 97 && json["height"] as? Int == 61)
        #expect(json["filters"] as? [String] == ["saturate:140%", "hue-rotate:30deg"])
        #expect(json["ms"] is Int)
        #expect(ImageFormat.sniff(try InputFile.read(out)) == .jpeg)
    }

    @Test func stdinToStdout() throws {
        let result = try Catctl.run(
            ["edit", "--filter", "invert", "-", "-"], stdinFile: Fixtures.path("photos/chelsea.png"))
        #expect(result.status == 0, "\(result.stderr)")
        let image = try ImageDecoder.decode(Array(result.stdout), name: "stdout")
        #expect(image.format == .png && image.pixels.width == 451)
        let jpeg = try Catctl.run(["edit", "--filter", "invert", "--format", "jpg", "-", "-"], stdinFile: cat)
        #expect(ImageFormat.sniff(Array(jpeg.stdout)) == .jpeg)
        // Filters that cannot stream read standard input once too.
        let blurred = try Catctl.run(
            ["edit", "--filter", "blur:2", "-", "-"], stdinFile: Fixtures.path("photos/chelsea.png"))
        #expect(blurred.status == 0, "\(blurred.stderr)")
        #expect(try ImageDecoder.decode(Array(blurred.stdout), name: "stdout").pixels.width == 451)
        let rotated = try Catctl.run(
            ["edit", "--filter", "mono", "-", "-"], stdinFile: Fixtures.path("jpeg/orient-6.jpg"))
        #expect(try ImageDecoder.decode(Array(rotated.stdout), name: "stdout").pixels.width == 16)
    }

    @Test func exitCodes() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("o.png").path
        let cases: [([String], Int32, String)] = [
            (
                ["edit", "--filter", "blurry", cat, out], 64,
                "unknown filter 'blurry' (did you mean blur?); valid filters: mono, sepia"
            ),
            (["edit", "--filter", "sepai", cat, out], 64, "(did you mean sepia?)"),
            (["edit", "--filter", "xyzzy", cat, out], 64, "unknown filter 'xyzzy'; valid filters: mono, sepia"),
            (["edit", "--filter", "sepia:abc", cat, out], 64, "bad value 'abc' for sepia"),
            (["edit", cat, out], 64, "--filter"),
            (
                ["edit", "--filter", "sepia", cat, dir.appendingPathComponent("o.bmp").path], 64,
                "unknown output extension"
            ),
            (["edit", "--filter", "sepia", "--quality", "0", cat, out], 64, "--quality must be 1-100"),
            (["edit", "--filter", "sepia", "--effort", "10", cat, out], 64, "--effort must be 0-9, not 10"),
            (
                ["edit", "--filter", "sepia", "--compression", "zip", cat, out], 64,
                "--compression must be none, lzw, deflate or jpeg, not zip"
            ),
            (
                ["edit", "--filter", "sepia", "/nonexistent/cat.jpg", out], 66,
                "cannot read /nonexistent/cat.jpg: no such file"
            ),
            (
                ["edit", "--filter", "sepia", Fixtures.path("jpeg/monkey12.jpg"), out], 65,
                "12-bit JPEG is not supported"
            ),
            (["edit", "--filter", "sepia", Fixtures.path("pngsuite/xcrn0g04.png"), out], 65, "xcrn0g04.png"),
            (
                ["edit", "--filter", "sepia", Fixtures.path("README.md"), out], 65,
                "not a JPEG, PNG, WebP, GIF, HEIC, AVIF, JPEG XL or TIFF file (starts with 23 20 54 65)"
            ),
            (
                ["edit", "--filter", "sepia", cat, dir.appendingPathComponent("missing/o.png").path], 73,
                "does not exist"
            ),
            (
                ["edit", "--filter", "sepia", "--max-pixels", "100", cat, out], 65,
                "97x61 is 5917 pixels, over the limit of 100 pixels (raise it with --max-pixels or CATCTL_MAX_PIXELS)"
            ),
            (
                ["edit", "--filter", "resize:100000", "--filter", "crop:10x10", cat, out], 65,
                "the edit would make a 100000x62887 image"
            ),
            // Checked once, by the parser and the option groups, before any scene runs:
            (
                ["edit", "--filter", "sepia", "--format", "bmp", cat, out], 64,
                "'bmp' is invalid for '--format <format>'"
            ),
            (["edit", "--filter", "sepia", "--format", "jpg", cat, out], 64, "--format jpg contradicts the extension"),
            (
                ["edit", "--filter", "sepia", cat, dir.appendingPathComponent("noext").path], 64,
                "(use .jpg, .jpeg, .png, .webp, .gif, .heic, .heif, .avif, .jxl, .tif or .tiff, or --format)"
            ),
            (["edit", "--filter", "sepia", "--png-level", "10", cat, out], 64, "--png-level must be 0-9, not 10"),
            (["edit", "--filter", "sepia", "--max-pixels", "0", cat, out], 64, "--max-pixels must be positive"),
            (
                ["batch", "--filter", "mono", "--output-dir", dir.path, "--shard", "4/3", cat], 64,
                "'4/3' is invalid for '--shard <K/N|auto/N>'"
            ),
            (
                ["batch", "--filter", "mono", "--output-dir", dir.path, "--format", "bmp", cat], 64,
                "'bmp' is invalid for '--format <format>'"
            ),
            (
                ["batch", "--filter", "mono", "--output-dir", dir.path, "--jobs", "0", cat], 64,
                "--jobs must be at least 1"
            ),
            (
                ["batch", "--filter", "mono", "--output-dir", dir.path, "--quality", "101", cat], 64,
                "--quality must be 1-100"
            ),
            (
                ["load", "--provider", "folder", "-o", dir.appendingPathComponent("c.bmp").path], 64,
                "unknown output extension"
            ),
            (["load", "--provider", "folder", "--filter", "sepia"], 64, "--filter needs -o FILE"),
            (["bench", "--kernels", "mmx"], 64, "provide one of 'avx512', 'avx2', 'sse4.1' or 'baseline'"),
        ]
        for (args, status, message) in cases {
            let result = try Catctl.run(args)
            #expect(result.status == status, "\(args): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(args): \(result.stderr)")
        }
        #expect(Fixtures.contents(of: dir).isEmpty, "no output, no temporary file")
    }

    @Test func overwritingTheInputNeedsForce() throws {
        let dir = try Fixtures.temporaryDirectory()
        let copy = dir.appendingPathComponent("cat.jpg").path
        try Data(try Fixtures.bytes("jpeg/chelsea-420.jpg")).write(to: URL(fileURLWithPath: copy))
        let refused = try Catctl.run(["edit", "--filter", "mono", copy, copy])
        #expect(refused.status == 73 && refused.stderr.contains("it is the input file (use --force to overwrite it)"))
        #expect(try InputFile.read(copy) == (try Fixtures.bytes("jpeg/chelsea-420.jpg")))
        let batch = try Catctl.run(["batch", "--filter", "mono", "--output-dir", dir.path, copy])
        #expect(
            batch.status == 65 && batch.stderr.contains("it is the input file") && !batch.stderr.contains("--force"))
        #expect(try Catctl.run(["edit", "--filter", "mono", "--force", copy, copy]).status == 0)
    }

    @Test func pixelLimitFromTheEnvironment() throws {
        let dir = try Fixtures.temporaryDirectory()
        let result = try Catctl.run(
            ["edit", "--filter", "mono", cat, dir.appendingPathComponent("o.png").path],
            environment: ["CATCTL_MAX_PIXELS": "5000"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("is 5917 pixels, over the limit of 5000 pixels"), "\(result.stderr)")
    }

    /// A gravity's window is in the saved event, in the input's pixels, whether the edit
    /// streams (the JPEG, shrunk on load for the cover) or not; without one, no `crop`.
    @Test func jsonSavedCarriesTheGravitysWindow() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = Fixtures.path("photos/chelsea.png")
        let jpeg = Fixtures.packageRoot.appendingPathComponent("Resources/cats/chelsea.jpg").path
        for input in [photo, jpeg] {
            for (filter, expected) in [
                ("cover:100x100:east", ["x": 150, "y": 0, "width": 301, "height": 300]),
                ("crop:40x30:southwest", ["x": 0, "y": 270, "width": 40, "height": 30]),
                ("resize:50% crop:40x30:north", ["x": 186, "y": 0, "width": 80, "height": 60]),
            ] {
                let filters = filter.split(separator: " ").flatMap { ["--filter", String($0)] }
                let result = try Catctl.run(["edit", "--json"] + filters + [input, dir.path + "/o.png"])
                #expect(result.status == 0, "\(result.stderr)")
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.stdoutLines.last!.utf8)) as? [String: Any])
                #expect(json["crop"] as? [String: Int] == expected, "\(filter) of \(input): \(result.stdoutText)")
            }
        }
        let plain = try Catctl.run(["edit", "--json", "--filter", "cover:100x100", photo, dir.path + "/p.png"])
        #expect(plain.stdoutLines.last?.contains("\"crop\"") == false)
    }

    /// attention and entropy read the picture: from a JPEG a 1/8 copy chooses the window and
    /// the edit still streams; from a PNG the decoded image does. Either way the output is
    /// exactly the input at the window the saved event reports.
    @Test(arguments: ["crop:150x300:entropy", "crop:150x300:attention", "crop:200x100:entropy"])
    func picturesGravitiesReportTheWindowTheyCut(_ filter: String) throws {
        let dir = try Fixtures.temporaryDirectory()
        for input in [
            Fixtures.packageRoot.appendingPathComponent("Resources/cats/chelsea.jpg").path,
            Fixtures.path("photos/chelsea.png"),
        ] {
            let output = dir.path + "/o.png"
            let result = try Catctl.run(["edit", "--json", "--filter", filter, input, output])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdoutLines.last!.utf8)) as? [String: Any])
            let crop = try #require(json["crop"] as? [String: Int], "\(result.stdoutText)")
            let (x, y, w, h) = (crop["x"]!, crop["y"]!, crop["width"]!, crop["height"]!)
            #expect(x >= 0 && y >= 0 && x + w <= 451 && y + h <= 300)
            let source = try ImageDecoder.decode(InputFile.read(input), name: "in").pixels
            let expected = try FilterChain(specs: ["crop:\(w)x\(h)+\(x)+\(y)"]).apply(to: source)
            let written = try ImageDecoder.decode(InputFile.read(output), name: "out").pixels
            #expect(written.packedRGBA() == expected.packedRGBA(), "\(filter) of \(input)")
        }
    }

    @Test func jsonErrorsAreTheLastLine() throws {
        let dir = try Fixtures.temporaryDirectory()
        for (args, code) in [
            (["edit", "--json", "--filter", "nope", cat, dir.path + "/o.png"], 64),
            (["edit", "--json", "--filter", "mono", "/nonexistent.jpg", dir.path + "/o.png"], 66),
            (["edit", "--json", "--bogus"], 64),
        ] as [([String], Int)] {
            let result = try Catctl.run(args)
            #expect(Int(result.status) == code)
            let last = try #require(result.stdoutLines.last, "\(args)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            #expect(json["event"] as? String == "error")
            #expect(json["code"] as? Int == code)
            #expect((json["message"] as? String)?.isEmpty == false)
        }
    }

    @Test func refusesToOverwriteTheInputUnlessForced() throws {
        let dir = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("cat.png").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/chelsea.png"), toPath: input)
        let before = try InputFile.read(input)
        let refused = try Catctl.run(["edit", "--filter", "mono", input, input])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("it is the input file"))
        #expect(try InputFile.read(input) == before)
        let forced = try Catctl.run(["edit", "--filter", "mono", "--force", input, input])
        #expect(forced.status == 0)
        #expect(try InputFile.read(input) != before)
        #expect(Fixtures.contents(of: dir) == ["cat.png"])
    }

    @Test func fullDiskIsAnIOError() throws {
        let result = try Catctl.run(
            ["edit", "--filter", "mono", Fixtures.path("photos/chelsea.png"), "-"],
            stdoutFile: "/dev/full")
        #expect(result.status == 74)
        #expect(result.stderr.contains("no space left on the device"))
    }

    @Test func filtersListing() throws {
        let table = try Catctl.run(["filters"])
        #expect(table.status == 0)
        for name in FilterRegistry.names { #expect(table.stdoutText.contains(name)) }
        let json = try Catctl.run(["filters", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(object["event"] as? String == "filters")
        let filters = try #require(object["filters"] as? [[String: Any]])
        #expect(filters.map { $0["name"] as? String } == FilterRegistry.names)
        #expect(
            filters.allSatisfy {
                ["color", "spatial", "geometry"].contains($0["kind"] as? String) && $0["description"] is String
            })
        #expect(
            filters.filter { $0["kind"] as? String == "spatial" }.map { $0["name"] as? String } == [
                "blur", "sharpen", "vignette", "convolve", "caption", "caption-top", "caption-bottom", "cutout",
                "sticker", "portrait",
            ])
        #expect(filters.first { $0["name"] as? String == "sepia" }?["default"] as? Double == 1)
        #expect(filters.first { $0["name"] as? String == "mono" }?["default"] is NSNull)
    }

    @Test func helpIsThere() throws {
        let help = try Catctl.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdoutText.contains("edit") && help.stdoutText.contains("filters"))
        let edit = try Catctl.run(["edit", "--help"])
        #expect(edit.stdoutText.contains("--filter") && edit.stdoutText.contains("--png-level"))
    }
}

@Suite("catctl edit --gallery, end to end")
struct GalleryCommandTests {
    @Test func writesOneContactSheet() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("sheet.png").path
        let result = try Catctl.run(["edit", "--gallery", "--json", Fixtures.path("photos/chelsea.png"), out])
        #expect(result.status == 0, "\(result.stderr)")
        let sheet = try ImageDecoder.decode(try InputFile.read(out), name: out).pixels
        let rows = (FilterRegistry.all.count + 5) / 6
        #expect(sheet.width == 6 * 212 + 12 && sheet.height == rows * (133 + 30 + 12) + 12)
        #expect(result.stdoutLines.last?.contains(#""event":"saved""#) == true)
        #expect(
            try Catctl.run(["edit", "--gallery", "--filter", "sepia", Fixtures.path("photos/chelsea.png"), out]).status
                == 64)
    }
}
