internal import CShimSupport
import CatSupport

/// S3 behind the storage seam (`Storage`): what `s3://` paths do, over `S3Client`. Reads
/// come into memory and go to the decoder from there (no temporary file); writes are encoded
/// into a memory file and uploaded when the encoder is done, so an object appears whole or
/// not at all, as a file is renamed into place. `catctl` registers it at start; nothing else
/// names S3 outside this folder.
public struct S3Store: Storage {
    public init() {}

    public func names(_ path: String) -> Bool { S3Location.names(path) }

    public func isFolder(_ path: String) throws(StorageError) -> Bool { try location(path).isPrefix }

    /// A listing takes every key under the prefix, outputs included.
    public var listingSkipsOutputs: Bool { false }

    /// Whether `path` lies under the prefix `folder` (it would be listed with its objects).
    public func contains(folder: String, _ path: String) -> Bool {
        guard let prefix = try? S3Location(folder), prefix.isPrefix, let location = try? S3Location(path) else {
            return false
        }
        return prefix.contains(location)
    }

    /// The object's bytes, refused before the download when S3 announces more than
    /// `maxBytes`, stopped when it sends more. (`special` is for local files.)
    public func open(_ path: String, maxBytes: Int, special: SpecialFiles) throws(StorageError) -> StoredInput {
        let location = try object(path)
        let s3 = try client()
        do {
            return .bytes(try s3.get(location, maxBytes: maxBytes))
        } catch let .tooLarge(_, announced, _) {
            throw StorageError(
                .tooLarge, S3Error.tooLarge(location: path, bytes: announced, limit: maxBytes).description,
                reason: "larger than \(maxBytes / 1_048_576) MiB, "
                    + (announced == nil ? "it sent more; the download was stopped" : "as S3 announces it"))
        } catch {
            throw StorageError(error)
        }
    }

    /// A well-formed object, S3 set up, and its bucket there (unless below a batch's output
    /// prefix, whose bucket was checked once when the run began).
    public func prepare(
        _ path: String, input: String?, force: Bool, within folder: OutputFolder?, mediaType: String?
    ) throws(StorageError) -> any StorageOutput {
        if !force, input == path { throw .outputIsInput(path: path) }
        let location = try object(path)
        // The same object however it is spelt (`S3://`, `s3://`): never replaced unless forced.
        if !force, let input, (try? S3Location(input)) == location { throw .outputIsInput(path: path) }
        let s3 = try client()
        if folder == nil { try checkFolder(path) }
        return Upload(
            path: path, location: location, client: s3, mediaType: mediaType,
            keepExisting: folder?.keepExisting ?? false)
    }

    /// A prefix has nothing to make: S3 must be set up and the bucket there, that is all.
    public func prepareFolder(_ path: String) throws(StorageError) -> OutputFolder {
        try checkFolder(path)
        return OutputFolder(path: path, resolved: path, device: 0, inode: 0)
    }

    /// A HEAD of the bucket. Credentials that may write but not look at the bucket (HEAD needs
    /// s3:ListBucket) get no answer here: the upload itself decides.
    private func checkFolder(_ path: String) throws(StorageError) {
        let location = try self.location(path)
        let s3 = try client()
        let exists: Bool
        do {
            exists = try s3.bucketExists(location.bucket)
        } catch .denied {
            return
        } catch {
            throw StorageError(error)
        }
        if !exists { throw Self.noBucket(path, location) }
    }

    /// An object to be: the output is encoded into a memory file, then uploaded whole.
    /// `keepExisting`: an object another task wrote meanwhile stays (`exists`).
    final class Upload: StorageOutput {
        let path: String
        let location: S3Location
        let client: S3Client
        let mediaType: String?
        let keepExisting: Bool

        init(path: String, location: S3Location, client: S3Client, mediaType: String?, keepExisting: Bool) {
            (self.path, self.location, self.client) = (path, location, client)
            (self.mediaType, self.keepExisting) = (mediaType, keepExisting)
        }

        func write(_ body: (Int32) throws -> Void) throws {
            let fd = cs_memory_file("catctl-output")
            guard fd >= 0 else {
                throw StorageError.cannotCreate(path: path, reason: "no memory file: \(errnoReason(errno))")
            }
            defer { CatSupport.close(fd) }
            try body(fd)
            let size = Int(lseek(fd, 0, SEEK_END))
            guard size >= 0 else { throw StorageError.writeFailed(path: path, reason: errnoReason(errno)) }
            do {
                try client.put(location, from: fd, size: size, contentType: mediaType, ifAbsent: keepExisting)
            } catch .noSuchBucket {
                throw S3Store.noBucket(path, location)
            } catch {
                throw StorageError(error)
            }
        }
    }

    /// Every key listed counts against `maxKeys` (each is network work), kept or not.
    public func list(
        _ path: String, recursive: Bool, maxKeys: Int, skipping: OutputFolder?, keep: (_ relative: String) -> Bool,
        found: (_ path: String, _ relative: String) -> Void, outside: (_ path: String) -> Void
    ) throws(StorageError) {
        let prefix = try location(path)
        let s3 = try client()
        let prefixBytes = FileNames.encode(prefix.key).count
        do {
            try s3.list(prefix, recursive: recursive, maxKeys: maxKeys) { (page: [S3Object]) throws(S3Error) in
                for object in page {
                    guard prefix.contains(object.location) else {
                        outside(object.location.description)
                        continue
                    }
                    let relative = FileNames.decode(FileNames.encode(object.location.key).dropFirst(prefixBytes))
                    if keep(relative) { found(object.location.description, relative) }
                }
            }
        } catch .noSuchBucket {
            throw Self.noBucket(path, prefix)
        } catch {
            throw StorageError(error)
        }
    }

    /// A HEAD each for a few, else one listing of the prefix, matched by a hash of each
    /// output's path (then by the path itself).
    public func existing(count: Int, under folder: String, path: (Int) -> String) throws(StorageError) -> [Bool] {
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
                    throw StorageError(error)
                }
            }
            return present
        }
        let prefix = try location(folder)
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
            throw StorageError(error)
        }
        return present
    }

    /// The client, or why there is none (AWS_ACCESS_KEY_ID unset, ...).
    private func client() throws(StorageError) -> S3Client {
        switch S3Client.shared {
        case let .success(client): return client
        case let .failure(error): throw StorageError(error)
        }
    }

    private func location(_ path: String) throws(StorageError) -> S3Location {
        do { return try S3Location(path) } catch { throw StorageError(error) }
    }

    /// `path` as one object (a key that is not a prefix).
    private func object(_ path: String) throws(StorageError) -> S3Location {
        let location = try location(path)
        guard !location.isPrefix else {
            throw StorageError(
                S3Error.invalidLocation(path, reason: "it names a prefix, not an object (its key ends with /)"))
        }
        return location
    }

    fileprivate static func noBucket(_ path: String, _ location: S3Location) -> StorageError {
        let reason = "the bucket \(location.bucket) does not exist"
        return StorageError(.missingFolder, "cannot use \(path): \(reason)", reason: reason)
    }
}

extension StorageError {
    /// An S3 failure in the seam's groups; the sentence is S3's own.
    init(_ error: S3Error) {
        let kind: Kind
        switch error.kind {
        case .usage: kind = .usage
        case .credentials: kind = .credentials
        case .missing:
            if case .noSuchBucket = error { kind = .missingFolder } else { kind = .missing }
        case .tooLarge: kind = .tooLarge
        case .exists: kind = .exists
        case .transient: kind = .transient
        case .refused: kind = .refused
        case .cancelled: kind = .cancelled
        case .cannotWrite: kind = .cannotWrite
        }
        self.init(kind, error.description, reason: error.description)
    }
}
