import CatImageIO
import CatNetwork
import CatPixels
import CatSupport
import FilterCore

/// How a scene ended, as the process exit status (sysexits, see docs/CLI.md).
public enum ExitStatus: Int32, Sendable, Equatable, CaseIterable {
    case ok = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case software = 70
    case unavailable = 69
    case cannotCreate = 73
    case ioError = 74
    /// EX_TEMPFAIL: the network or object storage failed; running the task again may work.
    case tempFail = 75
    /// EX_NOPERM: object storage refused the credentials (or they are not set).
    case noPermission = 77
    case interrupted = 130
}

/// What the user could do about a failure. Lower layers do not know the command line,
/// so they name the remedy and the command layer words it ("raise it with --max-pixels").
public enum FailureHint: Sendable, Equatable, Hashable {
    /// The image is over the pixel limit.
    case raisePixelLimit
    /// The output is the input file.
    case overwriteInput
    /// A download or an API reply is over its size limit.
    case raiseDownloadLimit
}

/// A failure as the user sees it: an exit status and one sentence.
/// This is the one place where errors of every layer are mapped to exit codes.
public struct SceneFailure: Error, Equatable, Sendable {
    public let status: ExitStatus
    public let message: String
    public let hint: FailureHint?

    public init(status: ExitStatus, message: String, hint: FailureHint? = nil) {
        self.status = status
        self.message = message
        self.hint = hint
    }

    public init(_ error: any Error) {
        switch error {
        case let failure as SceneFailure:
            self = failure
        case let error as FilterError:
            self.init(status: Self.status(of: error), message: error.description, hint: Self.hint(for: error))
        case let error as PixelError:
            self.init(status: .dataError, message: error.description, hint: Self.hint(for: error))
        case let error as ImageIOError:
            self.init(status: Self.status(of: error), message: error.description, hint: Self.hint(for: error))
        case let error as StorageError:
            self.init(status: Self.status(of: error), message: error.description)
        case let error as NetworkError:
            switch error {
            case .cancelled: self.init(status: .interrupted, message: "cancelled")
            case .notAnImage: self.init(status: .dataError, message: error.description)
            case .tooLarge: self.init(status: .unavailable, message: error.description, hint: .raiseDownloadLimit)
            case .invalidURL, .unsupportedScheme, .timedOut, .stalled, .connectionFailed, .httpStatus,
                .tooManyRedirects, .tls,
                .transfer, .badReply, .retryTooLate:
                self.init(status: .unavailable, message: error.description)
            }
        case is CancellationError:
            self.init(status: .interrupted, message: "cancelled")
        default:
            self.init(status: .software, message: "internal error: \(error)")
        }
    }

    static func status(of error: ImageIOError) -> ExitStatus {
        switch error {
        case .notAnImage, .corrupt, .truncated, .unsupported, .tooLarge, .limitExceeded, .pixels:
            return .dataError
        case .inputMissing, .inputUnreadable:
            return .noInput
        case .cannotCreate, .outputIsInput:
            return .cannotCreate
        case .writeFailed:
            return .ioError
        case .resourceMissing:
            return .software
        case let .storage(error):
            return status(of: error)
        }
    }

    static func status(of error: StorageError) -> ExitStatus {
        switch error.kind {
        case .usage, .tooMany: return .usage
        case .credentials: return .noPermission
        case .missing, .missingFolder, .tooLarge, .unreadable: return .noInput
        case .exists, .cannotWrite, .cannotCreate, .outputIsInput: return .cannotCreate
        case .writeFailed: return .ioError
        case .transient: return .tempFail
        case .refused: return .unavailable
        case .cancelled: return .interrupted
        }
    }

    static func hint(for error: ImageIOError) -> FailureHint? {
        switch error {
        case .tooLarge: return .raisePixelLimit
        case .outputIsInput: return .overwriteInput
        case let .pixels(error): return hint(for: error)
        case .notAnImage, .corrupt, .truncated, .unsupported, .limitExceeded, .inputMissing, .inputUnreadable,
            .cannotCreate, .writeFailed, .resourceMissing, .storage:
            return nil
        }
    }

    /// A bad `--filter` is a usage error; a stage that cannot run is the picture's or the font's.
    static func status(of error: FilterError) -> ExitStatus {
        switch error {
        case .unknownFilter, .badValue, .doesNotFit: return .usage
        case .pixels, .notAFont, .noCat, .tooManyFramesToMask: return .dataError
        case .noCatMask: return .unavailable
        case .fontUnreadable: return .noInput
        case .resourceMissing: return .software
        }
    }

    static func hint(for error: FilterError) -> FailureHint? {
        if case let .pixels(error) = error { return hint(for: error) }
        return nil
    }

    static func hint(for error: PixelError) -> FailureHint? {
        switch error {
        case .outputTooLarge: return .raisePixelLimit
        case .invalidSize, .outOfMemory, .outputTooLong: return nil
        }
    }
}
