/// The seam between catctl's work and where its files are: one protocol, `Storage`, for local
/// files (CatImageIO's `LocalFiles`) and object stores (CatNetwork's `S3Store`, `s3://bucket/key`,
/// wherever a path is taken). The codecs' files (CatImageIO's `InputFile`, `ImageSource`,
/// `OutputFile`, `OutputFolder.prepare`) and batch's listings ask `Storages` for the storage
/// of a path and go through it, whatever it is; nothing above the seam names S3 or branches
/// on it. Object stores are plugged in once by the composition root (`catctl`); a path no
/// store names is a local file. A new operation is a method here, its bodies in the stores,
/// and its caller.
public protocol Storage: Sendable {
    /// Whether `path` is one of this storage's (`s3://...`, any case; local files take the rest).
    func names(_ path: String) -> Bool
    /// Whether `path` names a folder (a directory; in a store, a prefix: the objects whose keys
    /// start with it), not one file.
    func isFolder(_ path: String) throws(StorageError) -> Bool
    /// Whether `list` leaves the output folder out (`skipping`) however it is reached (local
    /// files): then no output needs `contains`.
    var listingSkipsOutputs: Bool { get }
    /// Whether `path` would be listed among the files of the folder `folder` by `list` (an
    /// output there would be taken as an input by the next run).
    func contains(folder: String, _ path: String) -> Bool
    /// Opens `path` for reading: refused before any byte is read when it is larger than
    /// `maxBytes` (as far as the storage can tell; reading stops there too), and, for local
    /// files, when it is of a kind `special` does not allow.
    func open(_ path: String, maxBytes: Int, special: SpecialFiles) throws(StorageError) -> StoredInput
    /// `path` resolved and checked for writing once, before the work: a folder there, it is not
    /// `input` (unless `force`), and below `folder` (batch's output folder, made and checked when
    /// the run began) when given. The result is written once, later; a store labels it
    /// `mediaType`.
    func prepare(_ path: String, input: String?, force: Bool, within folder: OutputFolder?, mediaType: String?)
        throws(StorageError) -> any StorageOutput
    /// The folder `path` made when missing (local) or found there (a store's bucket), and
    /// resolved once, for a run's outputs.
    func prepareFolder(_ path: String) throws(StorageError) -> OutputFolder
    /// The files below the folder `path`, directly or at any depth (`recursive`), never inside
    /// `skipping`. `keep(relative)` is asked of each (its path below the folder); those kept go
    /// to `found` with their full and relative paths, in the storage's order (local files:
    /// sorted; a store: key order). At most `maxKeys`: of the files kept for local files, of
    /// every key listed for a store (each is network work); more is `tooMany`. A store's key
    /// that is not below the prefix goes to `outside`.
    func list(
        _ path: String, recursive: Bool, maxKeys: Int, skipping: OutputFolder?, keep: (_ relative: String) -> Bool,
        found: (_ path: String, _ relative: String) -> Void, outside: (_ path: String) -> Void
    ) throws(StorageError)
    /// Which of `count` files below the folder `folder` (`path(i)` names the i-th) exist.
    func existing(count: Int, under folder: String, path: (Int) -> String) throws(StorageError) -> [Bool]
}

/// What `Storage.open` gives: the descriptors are the caller's to close (never standard input).
public enum StoredInput {
    /// All the bytes, in memory (an object, downloaded).
    case bytes([UInt8])
    /// A regular file, open, of `size` bytes: read it where needed (pread).
    case file(Int32, size: Int)
    /// Standard input, a pipe, a FIFO or a device: read it as it comes, within the limit.
    case stream(Int32)
}

/// An output checked by `Storage.prepare`, written once: `write` gives `body` a descriptor
/// to write the whole output to; the output appears whole when `body` returns, or not at all
/// when it throws (a file is renamed into place, an object uploaded). Throws what `body`
/// throws, or a `StorageError`.
public protocol StorageOutput: AnyObject {
    /// As the user named it.
    var path: String { get }
    func write(_ body: (Int32) throws -> Void) throws
}

/// Which inputs that are no regular file are read. A FIFO is opened without waiting for a
/// writer (one with none reads as empty at once, never blocks the command), and every such
/// input is read within the size limit; standard input ("-") is read whatever it is.
public enum SpecialFiles: Sendable, Equatable {
    /// Regular files only (batch, detect): a FIFO or a device is refused at once.
    case none
    /// Also FIFOs and pipes (`edit <(curl …) out.png`); devices are refused.
    case pipes
    /// Also devices (`batch --allow-special-files`).
    case all
}

/// The stores a path may name, plugged in once at start (`register`); local files take the rest.
public enum Storages {
    private static let stores = LockedValue<[any Storage]>([])

    public static func register(_ store: any Storage) { stores.withLockedValue { $0.append(store) } }

    /// The registered store `path` names, or nil for a local path.
    public static func store(for path: String) -> (any Storage)? {
        stores.withLockedValue { $0.first { $0.names(path) } }
    }
}

/// Batch's output folder, made if missing and resolved once when the run begins
/// (`Storage.prepareFolder`): outputs go below it (`Storage.prepare(within:)`), and the walk
/// of the inputs leaves it out however it is reached (its device and inode).
public struct OutputFolder: Sendable, Equatable {
    /// As the user gave it: outputs are named below it in messages.
    public let path: String
    /// Every link resolved, at the start of the run (a store's prefix: the path itself).
    public let resolved: String
    let device: UInt64, inode: UInt64
    /// An output already there is kept, even when it is written meanwhile by another task
    /// of an array job (`--skip-existing`): S3 uploads then carry `If-None-Match: *`.
    public var keepExisting = false

    /// A folder known by its identity (a store's prefix: 0 and 0).
    public init(path: String, resolved: String, device: UInt64, inode: UInt64) {
        self.path = path
        self.resolved = resolved
        self.device = device
        self.inode = inode
    }

    /// Whether `st` is this folder.
    public func isFolder(_ st: stat) -> Bool { UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode }

    /// Whether the open `fd` is this folder.
    public func isFolder(open fd: Int32) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && isFolder(st)
    }
}

/// What can go wrong with a storage, in the groups an array-job engine acts on (`kind`,
/// mapped to exit codes by the scenes, and to the files' own errors by CatImageIO).
/// `description` is a whole sentence naming the location, and never holds a secret.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not a location the store can use; a listing past catctl's bounds.
        case usage
        /// Credentials not set, or refused.
        case credentials
        /// No such file or object.
        case missing
        /// No such folder (bucket): `reason` says which.
        case missingFolder
        /// Larger than asked: `reason` says how that was known.
        case tooLarge
        /// A local file that cannot be read: `reason` says why (a folder, a device, errno).
        case unreadable
        /// An output that cannot be created there: `reason` says why.
        case cannotCreate
        /// The output is the input (refused unless forced).
        case outputIsInput
        /// Writing failed on the way: `reason` says how.
        case writeFailed
        /// A listing with more files than allowed (`Storage.list`'s `maxKeys`).
        case tooMany
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
    /// The path the failure is about, for the kinds local files give (else empty).
    public let path: String

    public init(_ kind: Kind, _ description: String, reason: String = "", path: String = "") {
        (self.kind, self.description, self.reason, self.path) = (kind, description, reason, path)
    }

    /// The local files' failures, in the sentences the files' errors (CatImageIO's
    /// `ImageIOError`) have always used.
    public static func inputMissing(path: String) -> StorageError {
        StorageError(.missing, "cannot read \(path): no such file", path: path)
    }

    public static func inputUnreadable(path: String, reason: String) -> StorageError {
        StorageError(.unreadable, "cannot read \(path): \(reason)", reason: reason, path: path)
    }

    public static func cannotCreate(path: String, reason: String) -> StorageError {
        StorageError(.cannotCreate, "cannot create \(path): \(reason)", reason: reason, path: path)
    }

    public static func outputIsInput(path: String) -> StorageError {
        StorageError(.outputIsInput, "cannot create \(path): it is the input file", path: path)
    }

    public static func writeFailed(path: String, reason: String) -> StorageError {
        StorageError(.writeFailed, "cannot write \(path): \(reason)", reason: reason, path: path)
    }
}
