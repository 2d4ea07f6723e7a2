// swift-tools-version: 6.0
import PackageDescription

// Layers (arrows point to what a module imports; nothing points up; every module may
// import CatSupport, the portable system layer: FoundationEssentials, locks, threads, text,
// paths and the files that ship with catctl):
//   catctl ─► TerminalUI, CatScenes, CatNetwork, FilterCore, CatImageIO, CatPixels, ArgumentParser
//   TerminalUI ─► CatScenes, CatFaces, CatImageIO, CatPixels, CChafaShim, CTerminalShim (no filter
//     core: what `filters` and `bench` list comes through CatScenes/Listings)
//   CatScenes ─► CatNetwork, FilterCore, CatFaces, CatModels, CatImageIO, CatPixels
//   CatImageIO ─► CatPixels, CShimSupport, CJPEGShim, CPNGShim, CWebPShim, CGIFShim, CJXLShim,
//     CHEIFShim, CTIFFShim (the codecs, and local files behind the storage seam, CatSupport's
//     Storage; an s3:// path goes through it to the store catctl plugs in: CatNetwork's S3Store)
//   FilterCore ─► CatPixels, CFilterKernels, CKernelDispatch, CTextShim (the caption text); it knows no codec
//     (its streaming pipeline pulls from a RowSource and pushes to a RowSink) and no detector
//     (a scene hands its chains a SubjectFinder: CatScenes, over CatFaces)
//   CatFaces ─► CatModels, CatPixels, CCatDetectors (the cat-face cascades, their SIMD scan);
//     CatFinder puts the whole cats (CatModels) and their faces together
//   CatModels ─► CatPixels, CCatModels (the learned networks: the darknet reader, the runtime,
//     the whole-cat detector; their convolutions)
//   CFilterKernels, CCatDetectors, CCatModels ─► CKernelDispatch (one choice of SIMD build)
//   CatPixels ─► (nothing but CatSupport): PixelBuffer, regions, drawing, animation frames,
//     metadata, orientation, RowSource/RowSink; no I/O
//   CatNetwork ─► CCURLShim, CShimSupport (HTTP, the providers, S3 behind the Storage seam; it
//     knows no image format: the codec registry's recognizer is handed to it)
// C shims are imported with `internal import`: no C type reaches a public API. CShimSupport
// holds what the shims share (a write that retries on EINTR, the copy of their input, messages).
let package = Package(
    name: "catctl",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "catctl", targets: ["catctl"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // System libraries, found through pkg-config.
        .systemLibrary(
            name: "CLibJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CLibPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CLibZ", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(
            name: "CLibFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"]), .brew(["freetype"])]),
        .systemLibrary(
            name: "CLibLCMS2", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        .systemLibrary(
            name: "CLibWebP", pkgConfig: "libwebpmux libwebpdemux libwebp",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        .systemLibrary(
            name: "CLibJXL", pkgConfig: "libjxl libjxl_threads",
            providers: [.apt(["libjxl-dev"]), .brew(["jpeg-xl"])]),
        // libheif reads and writes HEIC and AVIF; libavif reads AVIF sequences (libheif 1.15 reads none);
        // libde265 and dav1d decode HEVC and AV1 for libheif, bounded by what the pre-scan checked
        // (CHEIFShim/hevc_decoder.c, av1_decoder.c).
        .systemLibrary(
            name: "CLibHEIF", pkgConfig: "libheif libavif libde265 dav1d",
            providers: [
                .apt(["libheif-dev", "libavif-dev", "libde265-dev", "libdav1d-dev"]),
                .brew(["libheif", "libavif", "libde265", "dav1d"]),
            ]),
        // libraqm lays text out over HarfBuzz (shaping) and FriBidi (direction); fontconfig finds
        // fonts for what the bundled one lacks.
        .systemLibrary(
            name: "CLibRaqm", pkgConfig: "raqm fontconfig",
            providers: [.apt(["libraqm-dev", "libfontconfig-dev"]), .brew(["libraqm", "fontconfig"])]),
        .systemLibrary(
            name: "CLibTIFF", pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"]), .brew(["libtiff"])]),
        .systemLibrary(
            name: "CLibChafa", pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev", "libglib2.0-dev"]), .brew(["chafa"])]),
        .systemLibrary(
            name: "CLibCURL", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),

        // Small C shims: every libjpeg/libpng call, setjmp/longjmp included, stays in C.
        // lcms2 converts CMYK JPEGs through their ICC profile.
        // What every shim needs the same way (a write that retries, the input copy, messages), written once.
        .target(name: "CShimSupport", dependencies: ["CLibLCMS2"]),
        // zlib-ng 2.2.2, vendored (zlib licence): the PNG encoder's deflate. Sources/CZlibNG/README.md.
        .target(
            name: "CZlibNG", exclude: ["LICENSE.md", "README.md"],
            cSettings: [
                .headerSearchPath("."), .define("NDEBUG"), .define("HAVE_POSIX_MEMALIGN"),
                .define("HAVE_VISIBILITY_HIDDEN"), .define("HAVE_VISIBILITY_INTERNAL"),
                .define("HAVE_ATTRIBUTE_ALIGNED"), .define("HAVE_BUILTIN_ASSUME_ALIGNED"),
                .define("HAVE_BUILTIN_CTZ"), .define("HAVE_BUILTIN_CTZLL"), .unsafeFlags(["-O2"]),
            ]),
        .target(name: "CJPEGShim", dependencies: ["CLibJPEG", "CLibLCMS2", "CShimSupport"]),
        .target(
            name: "CPNGShim", dependencies: ["CLibPNG", "CLibZ", "CZlibNG", "CShimSupport"],
            cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "CWebPShim", dependencies: ["CLibWebP", "CShimSupport"]),
        // giflib ships no pkg-config file: gif_lib.h from the system's include path, -lgif.
        .target(
            name: "CGIFShim", dependencies: ["CShimSupport"], cSettings: [.unsafeFlags(["-O3"])],
            linkerSettings: [.linkedLibrary("gif")]),
        // libjxl (JPEG XL) and libtiff (TIFF; CMYK through lcms2).
        .target(
            name: "CJXLShim",
            dependencies: [
                // Linked on Apple's systems; on Linux loaded when first needed (jxl_libraries.h).
                .target(name: "CLibJXL", condition: .when(platforms: [.macOS])), "CLibLCMS2", "CShimSupport",
            ]),
        .target(
            name: "CHEIFShim",
            dependencies: [
                // Linked on Apple's systems; on Linux loaded when first needed (heif_libraries.h).
                .target(name: "CLibHEIF", condition: .when(platforms: [.macOS])), "CLibLCMS2", "CShimSupport",
            ]),
        .target(name: "CTIFFShim", dependencies: ["CLibTIFF", "CLibLCMS2", "CShimSupport"]),
        .target(
            name: "CCURLShim",
            dependencies: [
                // Linked on Apple's systems; on Linux loaded when first needed (curl_shim.c).
                .target(name: "CLibCURL", condition: .when(platforms: [.macOS])), "CShimSupport",
            ]),
        // libchafa draws pictures in the terminal (symbols, kitty, iTerm2, sixel); GLib stays in C.
        .target(name: "CChafaShim", dependencies: ["CLibChafa"]),
        // Raw mode and the terminal given back on every way out, crashes included (signal-safe C).
        .target(name: "CTerminalShim", dependencies: ["CShimSupport"]),
        // The caption text stack: FreeType (glyphs, stroked outlines, colour emoji), libraqm over
        // HarfBuzz and FriBidi (shaping, direction), fontconfig (fallback fonts) and ICU (line breaks).
        .target(
            name: "CTextShim",
            dependencies: [
                // Linked on Apple's systems; on Linux loaded when first needed (text_libraries.h).
                "CLibFreeType", .target(name: "CLibRaqm", condition: .when(platforms: [.macOS])), "CShimSupport",
            ]),
        // The run-time choice of a SIMD kernel build, and what every kernel target's builds share
        // (ck_simd.h, ck_kernel_list.h: textual headers, included per build).
        .target(name: "CKernelDispatch"),
        // Pixel kernels of the filter core.
        .target(
            name: "CFilterKernels", dependencies: ["CKernelDispatch"],
            cSettings: [.unsafeFlags(["-O3", "-ffp-contract=off", "-Wno-psabi"])]),

        // Named CatImageIO, not ImageIO: that name is Apple's framework on macOS.
        .target(name: "CatSupport"),
        // The pixels every layer shares, with no I/O: PixelBuffer, regions, drawing, animation
        // frames, metadata, and the RowSource/RowSink protocols the codecs stream through.
        .target(name: "CatPixels", dependencies: ["CatSupport"]),
        .target(
            name: "CatImageIO",
            dependencies: [
                "CatSupport", "CShimSupport", "CJPEGShim", "CPNGShim", "CWebPShim", "CGIFShim", "CJXLShim", "CHEIFShim",
                "CTIFFShim", "CatPixels",
            ]),
        // CatFaces' C: OpenCV's cat-face cascades, built in, and their SIMD scan, built per
        // instruction set like the filter kernels.
        .target(
            name: "CCatDetectors", dependencies: ["CKernelDispatch"],
            exclude: [
                "haarcascade_frontalcatface.xml", "lbpcascade_frontalcatface.xml", "README.md",
            ],
            cSettings: [.unsafeFlags(["-Wno-c23-extensions", "-O3", "-ffp-contract=off", "-Wno-psabi"])]),
        // CatModels' C: the learned networks' convolutions, built per instruction set.
        .target(
            name: "CCatModels", dependencies: ["CKernelDispatch", "CShimSupport"],
            cSettings: [.unsafeFlags(["-O3", "-ffp-contract=off", "-Wno-psabi"])]),
        // The learned models: the darknet reader, the network runtime, the whole-cat detector.
        .target(name: "CatModels", dependencies: ["CatPixels", "CatSupport", "CCatModels"]),
        .target(name: "CatFaces", dependencies: ["CatModels", "CatPixels", "CatSupport", "CCatDetectors"]),
        .target(
            name: "FilterCore",
            dependencies: ["CatSupport", "CatPixels", "CFilterKernels", "CKernelDispatch", "CTextShim"]),
        .target(name: "CatNetwork", dependencies: ["CatSupport", "CCURLShim", "CShimSupport"]),
        .target(
            name: "CatScenes",
            dependencies: [
                "CatSupport", "CatPixels", "CatImageIO", "CatFaces", "CatModels", "FilterCore", "CatNetwork",
            ]),
        .target(
            name: "TerminalUI",
            dependencies: [
                "CatSupport", "CatPixels", "CatScenes", "CatFaces", "CatImageIO", "CChafaShim", "CTerminalShim",
            ]),
        .executableTarget(
            name: "catctl",
            dependencies: [
                "CatSupport", "CatPixels", "CatScenes", "TerminalUI", "FilterCore", "CatImageIO", "CatNetwork",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // Fixture paths, random images, a process runner: shared by the test targets.
        .target(name: "TestSupport", dependencies: ["CatPixels", "CatImageIO"], path: "Tests/TestSupport"),
        .testTarget(name: "CatSupportTests", dependencies: ["CatSupport"]),
        .testTarget(
            name: "CatFacesTests",
            dependencies: ["CatFaces", "CatModels", "CatPixels", "CatImageIO", "FilterCore", "TestSupport"]),
        .testTarget(name: "CatImageIOTests", dependencies: ["CatPixels", "CatImageIO", "FilterCore", "TestSupport"]),
        .testTarget(
            name: "FilterCoreTests", dependencies: ["FilterCore", "CatPixels", "CatFaces", "CatImageIO", "TestSupport"]),
        .testTarget(name: "CatNetworkTests", dependencies: ["CatNetwork", "CatScenes", "TestSupport"]),
        .testTarget(
            name: "CatScenesTests",
            dependencies: ["CatScenes", "CatNetwork", "FilterCore", "CatPixels", "CatImageIO", "TestSupport"]),
        .testTarget(
            name: "TerminalUITests",
            dependencies: ["TerminalUI", "CatScenes", "FilterCore", "CatPixels", "CatImageIO", "TestSupport"]),
        // End to end: runs the built `catctl` binary.
        .testTarget(name: "CLITests", dependencies: ["catctl", "FilterCore", "CatPixels", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
