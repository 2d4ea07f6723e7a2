import CatSupport

/// S3 behind the object-store seam (`ObjectStore`): what `s3://` paths do, over `S3Client`.
/// `catctl` registers it at start; nothing else names S3 outside this folder.
public struct S3Store: ObjectStore {
    public init() {}

    public func names(_ path: String) -> Bool { S3Location.names(path) }

    public func isPrefix(_ path: String) throws(StorageError) -> Bool { try location(path).isPrefix }

    public func contains(prefix: String, _ path: String) -> Bool {
        guard let prefix = try? S3Location(prefix), prefix.isPrefix, let location = try? S3Location(path) else {
            return false
        }
        return prefix.contains(location)
    }

    public func read(_ path: String, maxBytes: Int) throws(StorageError) -> [UInt8] {
        let location = try object(path)
        let s3 = try client()
        do {
            return try s3.get(location, maxBytes: maxBytes)
        } catch let .tooLarge(_, announced, _) {
            throw StorageError(
                .tooLarge, S3Error.tooLarge(location: path, bytes: announced, limit: maxBytes).description,
                reason: announced == nil ? "it sent more; the download was stopped" : "as S3 announces it")
        } catch {
            throw StorageError(error)
        }
    }

    public func checkCreatable(_ path: String, folderChecked: Bool) throws(StorageError) {
        _ = try object(path)
        _ = try client()
        if !folderChecked { try checkFolder(path) }
    }

    /// A HEAD of the bucket. Credentials that may write but not look at the bucket (HEAD needs
    /// s3:ListBucket) get no answer here: the upload itself decides.
    public func checkFolder(_ path: String) throws(StorageError) {
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

    public func write(_ path: String, from fd: Int32, size: Int, mediaType: String?, keepExisting: Bool)
        throws(StorageError)
    {
        let location = try object(path)
        let s3 = try client()
        do {
            try s3.put(location, from: fd, size: size, contentType: mediaType, ifAbsent: keepExisting)
        } catch .noSuchBucket {
            throw Self.noBucket(path, location)
        } catch {
            throw StorageError(error)
        }
    }

    public func list(
        _ path: String, recursive: Bool, maxKeys: Int, found: (_ path: String, _ relative: String) -> Void,
        outside: (_ path: String) -> Void
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
                    found(
                        object.location.description,
                        FileNames.decode(FileNames.encode(object.location.key).dropFirst(prefixBytes)))
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

    private static func noBucket(_ path: String, _ location: S3Location) -> StorageError {
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
