import CatSupport

/// A random image directly inside a folder (by default the bundled Resources/cats),
/// so `catctl load --provider folder` works offline.
extension CatProviderKind {
    public static let folder = CatProviderKind(FolderProvider.self)
}

struct FolderProvider: CatProvider, CatProviderType {
    static let name = "folder"
    static func help(imageFormats: String) -> String {
        "a random \(imageFormats) in --endpoint DIR, by default the bundled cats (offline)."
    }
    static let endpointRequired: String? = nil
    static let takesQuery = false
    static let readsFolder = true

    /// The command line gives the bundled folder as the default endpoint.
    static func make(_ setup: CatProviderSetup) -> any CatProvider {
        FolderProvider(
            directory: setup.endpoint ?? "Resources/cats", maxBytes: setup.limits.maxImageBytes,
            formats: setup.formats)
    }

    var name: String { Self.name }
    let directory: String
    var maxBytes = ProviderLimits().maxImageBytes
    let formats: CatImageFormats

    func locateCat() async throws -> CatReference {
        guard isDirectory(atPath: directory) else {
            throw NetworkError.badReply(provider: name, url: directory, reason: "no such folder")
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { file in
            let ext = file.split(separator: ".", omittingEmptySubsequences: false).dropFirst().last?.lowercased() ?? ""
            return formats.fileExtensions.contains(ext) && !file.hasPrefix(".")
        }.sorted()
        guard let pick = files.randomElement() else {
            throw NetworkError.badReply(provider: name, url: directory, reason: "no \(formats.names) files in it")
        }
        let id = pick.lastIndex(of: ".").map { String(pick[..<$0]) } ?? pick
        return CatReference(
            provider: name, id: id, url: directory.hasSuffix("/") ? directory + pick : directory + "/" + pick)
    }

    func fetchCat(_ cat: CatReference, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> [UInt8] {
        let size = (try? FileManager.default.attributesOfItem(atPath: cat.url)[.size] as? Int) ?? nil
        if let size, size > maxBytes { throw NetworkError.tooLarge(url: cat.url, limit: maxBytes) }
        guard let data = FileManager.default.contents(atPath: cat.url) else {
            throw NetworkError.badReply(provider: name, url: cat.url, reason: "cannot read the file")
        }
        progress(Int64(data.count), Int64(data.count))
        let bytes = Array(data)
        try formats.check(bytes, url: cat.url, contentType: nil)
        return bytes
    }
}
