internal import CShimSupport
import CatSupport

/// Paths that name objects, `s3://bucket/key`, wherever catctl takes a path, through the
/// store plugged in at the seam (`ObjectStores`; CatImageIO knows no S3): reads come into
/// memory and go to the decoder from there (no temporary file); writes are encoded into a
/// memory file and uploaded when the encoder is done, so an object appears whole or not at
/// all, as a file is renamed into place. `InputFile`, `ImageSource`, `OutputFile` and
/// `OutputFolder` send such paths here; this turns the store's failures into the files'.
enum ObjectStorage {
    /// Whether `path` names an object or a prefix in a store.
    static func names(_ path: String) -> Bool { ObjectStores.store(for: path) != nil }

    private static func store(_ path: String) -> any ObjectStore {
        guard let store = ObjectStores.store(for: path) else { preconditionFailure("names(path) first") }
        return store
    }

    /// The object's bytes, refused before the download when the store announces more than `maxBytes`.
    static func read(_ path: String, maxBytes: Int) throws(ImageIOError) -> [UInt8] {
        do {
            return try store(path).read(path, maxBytes: maxBytes)
        } catch {
            switch error.kind {
            case .missing: throw .inputMissing(path: path)
            case .tooLarge:
                throw .inputUnreadable(path: path, reason: "larger than \(maxBytes / 1_048_576) MiB, \(error.reason)")
            case .usage, .credentials, .missingFolder, .exists, .transient, .refused, .cancelled, .cannotWrite:
                throw .storage(error)
            }
        }
    }

    /// Whether `path` could be written: a well-formed object, the store set up, and its
    /// folder there (unless `folderChecked`: a batch's, once when the run began).
    static func checkCreatable(_ path: String, folderChecked: Bool = false) throws(ImageIOError) {
        do { try store(path).checkCreatable(path, folderChecked: folderChecked) } catch { throw failure(path, error) }
    }

    /// Whether the folder of `path` is there, so that a run can stop before its work.
    static func checkFolder(_ path: String) throws(ImageIOError) {
        do { try store(path).checkFolder(path) } catch { throw failure(path, error) }
    }

    /// `body` writes the whole output to a memory file, which is then uploaded to `path`
    /// with the media type of its extension. `keepExisting`: an object another task wrote
    /// meanwhile stays (and this throws `.storage` of kind `exists`).
    static func write(
        to path: String, keepExisting: Bool, _ body: (Int32) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        let store = store(path)
        try checkCreatable(path, folderChecked: true)
        let fd = cs_memory_file("catctl-output")
        guard fd >= 0 else { throw .cannotCreate(path: path, reason: "no memory file: \(errnoReason(errno))") }
        defer { CatSupport.close(fd) }
        try body(fd)
        let size = Int(lseek(fd, 0, SEEK_END))
        guard size >= 0 else { throw .writeFailed(path: path, reason: errnoReason(errno)) }
        do {
            try store.write(
                path, from: fd, size: size, mediaType: ImageFormat(path: path)?.mediaType, keepExisting: keepExisting)
        } catch {
            throw failure(path, error)
        }
    }

    /// A missing folder is an output that cannot be created; the rest are the store's.
    private static func failure(_ path: String, _ error: StorageError) -> ImageIOError {
        error.kind == .missingFolder ? .cannotCreate(path: path, reason: error.reason) : .storage(error)
    }
}
