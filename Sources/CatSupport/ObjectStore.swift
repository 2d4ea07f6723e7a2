/// The seam between files and object storage. catctl takes `s3://bucket/key` wherever it
/// takes a path. The codecs' files (CatImageIO's `InputFile`, `ImageSource`, `OutputFile`,
/// `OutputFolder`) and batch's listings ask `ObjectStores.store(for:)` whether a path is an
/// object's, and go through the store when it is. The store itself is CatNetwork's
/// `S3Store`, plugged in by the composition root (`catctl`). Nothing above this names S3.
/// A new operation on objects is a method here, its body in the store, and its caller.
public protocol ObjectStore: Sendable {
    /// Whether `path` is one of this store's (`s3://...`, any case).
    func names(_ path: String) -> Bool
    /// Whether `path` names a prefix (the objects whose keys start with it), not one object.
    func isPrefix(_ path: String) throws(StorageError) -> Bool
    /// Whether `path` lies under the prefix `prefix` (an output there would be listed with the
    /// inputs of the next run).
    func contains(prefix: String, _ path: String) -> Bool
    /// The object's bytes, refused before the download when the store announces more than
    /// `maxBytes` (`tooLarge`), stopped when it sends more.
    func read(_ path: String, maxBytes: Int) throws(StorageError) -> [UInt8]
    /// Whether `path` could be written: a well-formed object, the store set up, and (unless
    /// `folderChecked`) its folder there.
    func checkCreatable(_ path: String, folderChecked: Bool) throws(StorageError)
    /// Whether the folder (a bucket, a prefix) of `path` is there, as far as the credentials
    /// can tell (`missingFolder` when it is not).
    func checkFolder(_ path: String) throws(StorageError)
    /// Uploads the first `size` bytes of `fd` as the object `path`, whole or not at all.
    /// `keepExisting`: an object written there meanwhile stays (`exists`).
    func write(_ path: String, from fd: Int32, size: Int, mediaType: String?, keepExisting: Bool)
        throws(StorageError)
    /// The objects below the prefix `path`, in key order: directly below it, or at any depth
    /// when `recursive`; each given to `found` with its path and its key below the prefix.
    /// At most `maxKeys` (more is `usage`). An object listed that is not below the prefix
    /// goes to `outside`.
    func list(
        _ path: String, recursive: Bool, maxKeys: Int, found: (_ path: String, _ relative: String) -> Void,
        outside: (_ path: String) -> Void
    ) throws(StorageError)
    /// Which of `count` objects below the prefix `folder` (`path(i)` names the i-th) exist.
    func existing(count: Int, under folder: String, path: (Int) -> String) throws(StorageError) -> [Bool]
}

/// The stores a path may name, plugged in once at start (`register`).
public enum ObjectStores {
    private static let stores = LockedValue<[any ObjectStore]>([])

    public static func register(_ store: any ObjectStore) { stores.withLockedValue { $0.append(store) } }

    /// The store `path` names, or nil for a local path.
    public static func store(for path: String) -> (any ObjectStore)? {
        stores.withLockedValue { $0.first { $0.names(path) } }
    }
}

/// What can go wrong with an object store, in the groups an array-job engine acts on
/// (`kind`, mapped to exit codes by the scenes). `description` is a whole sentence naming
/// the location, and never holds a secret.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not a location the store can use; a listing past catctl's bounds.
        case usage
        /// Credentials not set, or refused.
        case credentials
        /// No such object.
        case missing
        /// No such folder (bucket): `reason` says which.
        case missingFolder
        /// Larger than asked: `reason` says how that was known.
        case tooLarge
        /// Written meanwhile by another task, and kept.
        case exists
        /// The network or the server failed, after the retries: worth running again.
        case transient
        /// Refused for another reason, which a retry will not change.
        case refused
        case cancelled
        /// An output past what the store can take.
        case cannotWrite
    }

    public let kind: Kind
    public let description: String
    /// The short reason, for messages that name the path themselves.
    public let reason: String

    public init(_ kind: Kind, _ description: String, reason: String = "") {
        (self.kind, self.description, self.reason) = (kind, description, reason)
    }
}
