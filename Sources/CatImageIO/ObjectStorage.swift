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

    /// The images under the prefix `path` (by extension; keys with a hidden component, as
    /// `.x/` or `.x.jpg`, left out), in key order: directly below it, or at any depth when
    /// `recursive`; each given to `found` with its path and where its key below the prefix
    /// starts in that path's bytes. At most `maxKeys` keys are listed (more is
    /// `listingTooLarge`). A key the server lists that does not start with the prefix is
    /// not cut to fit: it goes to `outside`, and is not an input.
    public static func images(
        under path: String, recursive: Bool, maxKeys: Int, found: (_ path: String, _ relativeFrom: Int) -> Void,
        outside: (_ path: String) -> Void
    ) throws(ImageIOError) {
        let prefix: S3Location
        do { prefix = try S3Location(path) } catch { throw .storage(error) }
        let s3 = try client()
        let start = FileNames.encode(prefix.description).count
        do {
            try s3.list(prefix, recursive: recursive, maxKeys: maxKeys) { (page: [S3Object]) throws(S3Error) in
                for object in page {
                    guard prefix.contains(object.location) else {
                        outside(object.location.description)
                        continue
                    }
                    let relative = FileNames.decode(
                        FileNames.encode(object.location.key).dropFirst(FileNames.encode(prefix.key).count))
                    let parts = FileNames.components(of: relative)
                    guard !parts.isEmpty, !parts.contains(where: FileNames.isHidden),
                        !relative.hasSuffix("/"), ImageFormat(path: relative) != nil
                    else { continue }
                    found(object.location.description, start)
                }
            }
        } catch .noSuchBucket {
            throw .inputMissing(path: path)
        } catch {
            throw .storage(error)
        }
    }

    /// Which of `count` outputs (objects below the prefix `folder`; `path(i)` names the
    /// i-th) exist: a HEAD each for a few, else one listing of the prefix, matched by a
    /// hash of each output's path (then by the path itself).
    public static func existing(count: Int, under folder: String, path: (Int) -> String) throws(ImageIOError)
        -> [Bool]
    {
        let s3 = try client()
        var present = [Bool](repeating: false, count: count)
        if count <= 100 {
            for i in 0..<count {
                let location = try object(path(i))
                do {
                    present[i] = try s3.exists(location)
                } catch .noSuchBucket {
                    return present
                } catch {
                    throw .storage(error)
                }
            }
            return present
        }
        let prefix: S3Location
        do { prefix = try S3Location(folder) } catch { throw .storage(error) }
        var wanted = (0..<count).map { (hash: FileNames.hash(path($0)), index: $0) }
        wanted.sort { ($0.hash, $0.index) < ($1.hash, $1.index) }
        do {
            // The output prefix may hold every shard's outputs: bounded as a batch's inputs are.
            try s3.list(prefix, recursive: true, maxKeys: 10_000_000) { (page: [S3Object]) throws(S3Error) in
                for object in page {
                    let name = object.location.description, hash = FileNames.hash(name)
                    var low = 0, high = wanted.count
                    while low < high {
                        let mid = (low + high) / 2
                        if wanted[mid].hash < hash { low = mid + 1 } else { high = mid }
                    }
                    while low < wanted.count, wanted[low].hash == hash {
                        if path(wanted[low].index) == name { present[wanted[low].index] = true }
                        low += 1
                    }
                }
            }
        } catch .noSuchBucket {
            return present
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
