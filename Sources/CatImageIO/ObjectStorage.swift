internal import CShimSupport
import CatNetwork
import CatSupport

/// Paths that name objects in S3, `s3://bucket/key`, wherever catctl takes a path: reads
/// come into memory and go to the decoder from there (no temporary file); writes are
/// encoded into a memory file and uploaded when the encoder is done (one PUT, or a
/// multipart upload that is aborted on failure), so a key appears whole or not at all, as
/// a file is renamed into place. `InputFile`, `ImageSource` and `OutputFile` send such
/// paths here.
public enum ObjectStorage {
    /// Whether `path` names an object or a prefix in S3.
    public static func names(_ path: String) -> Bool { S3Location.names(path) }

    /// The client, or why there is none (AWS_ACCESS_KEY_ID unset, ...).
    public static func client() throws(ImageIOError) -> S3Client {
        switch S3Client.shared {
        case let .success(client): return client
        case let .failure(error): throw .storage(error)
        }
    }

    /// `path` as one object (a key that is not a prefix).
    public static func object(_ path: String) throws(ImageIOError) -> S3Location {
        let location: S3Location
        do { location = try S3Location(path) } catch { throw .storage(error) }
        guard !location.isPrefix else {
            throw .storage(.invalidLocation(path, reason: "it names a prefix, not an object (its key ends with /)"))
        }
        return location
    }

    /// The object's bytes, refused before the download when S3 announces more than `maxBytes`.
    static func read(_ path: String, maxBytes: Int) throws(ImageIOError) -> [UInt8] {
        let location = try object(path)
        let s3 = try client()
        do {
            return try s3.get(location, maxBytes: maxBytes)
        } catch .noSuchKey {
            throw .inputMissing(path: path)
        } catch let .tooLarge(_, announced, _) {
            let how = announced == nil ? "it sent more; the download was stopped" : "as S3 announces it"
            throw .inputUnreadable(path: path, reason: "larger than \(maxBytes / 1_048_576) MiB, \(how)")
        } catch {
            throw .storage(error)
        }
    }

    /// Whether `path` could be written: a well-formed object key, S3 set up, and its bucket
    /// there (a HEAD, unless `bucketChecked`).
    static func checkCreatable(_ path: String, bucketChecked: Bool = false) throws(ImageIOError) {
        let location = try object(path)
        _ = try client()
        if !bucketChecked { try checkBucket(path, location) }
    }

    /// `body` writes the whole output to a memory file, which is then uploaded to `path`
    /// with the media type of its extension. `keepExisting`: `If-None-Match: *`, so an
    /// object another task wrote meanwhile stays (and this throws `.storage(.alreadyExists)`).
    static func write(
        to path: String, keepExisting: Bool, _ body: (Int32) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        let location = try object(path)
        let s3 = try client()
        let fd = cs_memory_file("catctl-output")
        guard fd >= 0 else { throw .cannotCreate(path: path, reason: "no memory file: \(errnoReason(errno))") }
        defer { CatSupport.close(fd) }
        try body(fd)
        let size = Int(lseek(fd, 0, SEEK_END))
        guard size >= 0 else { throw .writeFailed(path: path, reason: errnoReason(errno)) }
        do {
            try s3.put(
                location, from: fd, size: size, contentType: ImageFormat(path: location.key)?.mediaType,
                ifAbsent: keepExisting)
        } catch .noSuchBucket {
            throw .cannotCreate(path: path, reason: "the bucket \(location.bucket) does not exist")
        } catch {
            throw .storage(error)
        }
    }

    /// A listing is held whole (a batch names every output from the whole list); past
    /// this many objects the inputs are to be given as a manifest.
    public static let maxListed = 10_000_000

    /// The images under the prefix `path` (by extension; keys with a hidden component, as
    /// `.x/` or `.x.jpg`, left out), in key order: directly below it, or at any depth
    /// when `recursive`; each with its key below the prefix.
    public static func images(under path: String, recursive: Bool) throws(ImageIOError) -> [(
        path: String, relative: String
    )] {
        let prefix: S3Location
        do { prefix = try S3Location(path) } catch { throw .storage(error) }
        let s3 = try client()
        var found: [(path: String, relative: String)] = []
        do {
            try s3.list(prefix, recursive: recursive, maxKeys: maxListed) { (page: [S3Object]) throws(S3Error) in
                for object in page {
                    let relative = String(object.location.key.unicodeScalars.dropFirst(prefix.key.unicodeScalars.count))
                    let parts = FileNames.components(of: relative)
                    guard !parts.isEmpty, !parts.contains(where: FileNames.isHidden),
                        !relative.hasSuffix("/"), ImageFormat(path: relative) != nil
                    else { continue }
                    found.append((object.location.description, relative))
                }
            }
        } catch .noSuchBucket {
            throw .inputMissing(path: path)
        } catch {
            throw .storage(error)
        }
        return found
    }

    /// Which of `paths` (objects below the prefix `folder`) exist: a HEAD each for a few,
    /// else one listing of the prefix.
    public static func existing(_ paths: [String], under folder: String) throws(ImageIOError) -> Set<String> {
        let s3 = try client()
        var present: Set<String> = []
        if paths.count <= 100 {
            for path in paths {
                let location = try object(path)
                do {
                    if try s3.exists(location) { present.insert(path) }
                } catch .noSuchBucket {
                    return []
                } catch {
                    throw .storage(error)
                }
            }
            return present
        }
        let prefix: S3Location
        do { prefix = try S3Location(folder) } catch { throw .storage(error) }
        let wanted = Set(paths)
        do {
            try s3.list(prefix, recursive: true, maxKeys: maxListed) { (page: [S3Object]) throws(S3Error) in
                for object in page where wanted.contains(object.location.description) {
                    present.insert(object.location.description)
                }
            }
        } catch .noSuchBucket {
            return []
        } catch {
            throw .storage(error)
        }
        return present
    }

    /// Whether the bucket of `path` exists (HEAD), so that a run can stop before its work.
    /// Credentials that may write but not look at the bucket (HEAD needs s3:ListBucket) get
    /// no answer here: the upload itself decides.
    static func checkBucket(_ path: String, _ location: S3Location) throws(ImageIOError) {
        let s3 = try client()
        let exists: Bool
        do { exists = try s3.bucketExists(location.bucket) } catch .denied { return } catch { throw .storage(error) }
        if !exists { throw .cannotCreate(path: path, reason: "the bucket \(location.bucket) does not exist") }
    }
}
