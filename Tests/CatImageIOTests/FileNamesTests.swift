import CatImageIO
import CatSupport
import Foundation
import Testing

/// File names are bytes: decoding and encoding them is lossless for any bytes.
@Suite("File names as bytes")
struct FileNamesTests {
    @Test func anyBytesSurviveTheRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 3, 4, 5, 17, 255] {
            for _ in 0..<300 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(FileNames.encode(FileNames.decode(bytes)) == bytes, "\(bytes)")
            }
        }
        // Edge cases: overlong forms, surrogates, past U+10FFFF, cut sequences, and a real
        // scalar of the raw-byte range (U+10FF41), which must keep its four bytes.
        for bytes: [UInt8] in [
            [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
            [0xF4, 0x8F, 0xBD, 0x81], [0xC3], [0x80, 0x80], [0xF0, 0x9F, 0x90, 0x88, 0xFF],
        ] {
            #expect(FileNames.encode(FileNames.decode(bytes)) == bytes, "\(bytes)")
        }
    }

    /// Only bytes 0x80–0xFF are ever raw: text holding U+10FF2F or U+10FF00 cannot become
    /// a "/" or a NUL in a path.
    @Test func noScalarBecomesASlashOrANul() {
        for text in ["a\u{10FF2F}b", "\u{10FF00}", "x\u{10FF7F}"] {
            #expect(FileNames.encode(text) == Array(text.utf8))
            #expect(FileNames.decode(Array(text.utf8)) == text)
        }
        #expect(FileNames.components(of: "out/\u{301}x.png") == ["out", "\u{301}x.png"], "split at scalars")
    }

    @Test func utf8NamesAreTheirText() {
        for name in ["cat.png", "café.jpg", "猫.webp", "🐈 e\u{301}.gif", "a\nb"] {
            #expect(FileNames.decode(Array(name.utf8)) == name)
            #expect(FileNames.encode(name) == Array(name.utf8))
        }
    }

    @Test func systemCallsTakeTheBytes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("catctl-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = FileNames.decode([0x6E, 0xE9, 0x2E, 0x70, 0x6E, 0x67])  // "n\xe9.png", Latin-1
        let fd = FileSystem.open(dir.path + "/" + name, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        close(fd)
        let folder = FileSystem.open(dir.path, O_RDONLY | O_DIRECTORY)
        defer { close(folder) }
        let listed = try #require(FileSystem.entries(ofDirectory: folder))
        #expect(listed.map(\.name) == [name])
        #expect(FileSystem.exists(dir.path + "/" + name))
        #expect(!FileSystem.exists(dir.path + "/n\u{E9}.png"), "not the same name as the UTF-8 é")
    }

    /// Every name of a folder is read whatever its length: a record is only as long as its
    /// name, and the last of readdir's buffer was once copied as d_name's 256 bytes, past
    /// the buffer's end (a crash now and then; under the sanitizer, at once).
    @Test func namesOfEveryLengthAreListed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("catctl-lengths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var names: Set<String> = []
        for length in 1...255 {
            for copy in 0..<4 {
                let name = String(repeating: "abcd".map(String.init)[copy], count: length)
                _ = FileManager.default.createFile(atPath: dir.path + "/" + name, contents: nil)
                names.insert(name)
            }
        }
        // A listing reads the folder's descriptor to its end: each opens it anew.
        func listing(_ keep: @escaping (UnsafeRawBufferPointer) -> Bool = { _ in true }) -> [String]? {
            let folder = FileSystem.open(dir.path, O_RDONLY | O_DIRECTORY)
            defer { close(folder) }
            return FileSystem.entries(ofDirectory: folder, named: keep)?.map(\.name)
        }
        for _ in 0..<3 {
            #expect(Set(try #require(listing())) == names)
            #expect(try #require(listing { $0.count == 255 }).count == 4)
        }
    }
}
