import CSQLite
import Glibc

/// An error from the state store: a machine-readable ``Code`` and a message a
/// person can act on (it names the file and says what SQLite or the kernel said).
///
/// `Code` is a struct of static constants rather than an enum so that codes can
/// be added later without breaking callers that switch over them.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case cannotOpen, readOnly, diskFull, corrupt, busy, ioError
            case constraint, locked, newerSchema, failed
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        public var description: String { kind.rawValue }

        /// The file or its directory could not be opened or created.
        public static let cannotOpen = Code(.cannotOpen)
        /// The database (or its directory) cannot be written.
        public static let readOnly = Code(.readOnly)
        /// The disk or the user's quota is full.
        public static let diskFull = Code(.diskFull)
        /// The file is damaged or is not an SQLite database.
        public static let corrupt = Code(.corrupt)
        /// Another connection held a lock for longer than the busy timeout.
        public static let busy = Code(.busy)
        /// The operating system reported an I/O error.
        public static let ioError = Code(.ioError)
        /// A row broke a constraint of the schema (a bug in the caller).
        public static let constraint = Code(.constraint)
        /// Another process holds the lock on the state directory.
        public static let locked = Code(.locked)
        /// The database was written by a newer build with a schema this build does not know.
        public static let newerSchema = Code(.newerSchema)
        /// Any other failure.
        public static let failed = Code(.failed)
    }

    /// What kind of failure this is.
    public let code: Code
    /// The file or directory the failure is about.
    public let path: String
    /// A complete sentence for logs and for the person running notifyd.
    public let message: String

    /// Creates an error; `message` should name `path` and suggest a remedy.
    public init(code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { message }
}

extension StoreError.Code {
    /// The code for an SQLite result code, primary or extended.
    init(sqliteResultCode: Int32) {
        switch sqliteResultCode & 0xff {
        case SQLITE_PERM, SQLITE_READONLY: self = .readOnly
        case SQLITE_FULL: self = .diskFull
        case SQLITE_CANTOPEN: self = .cannotOpen
        case SQLITE_CORRUPT, SQLITE_NOTADB: self = .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: self = .busy
        case SQLITE_IOERR: self = .ioError
        case SQLITE_CONSTRAINT: self = .constraint
        default: self = .failed
        }
    }

    /// The code for an `errno` from a file-system call, `fallback` when none fits.
    init(errno number: Int32, fallback: StoreError.Code) {
        switch number {
        case ENOSPC, EDQUOT: self = .diskFull
        case EROFS: self = .readOnly
        case EIO: self = .ioError
        default: self = fallback
        }
    }

    /// What the person running notifyd can do about it, or `nil`.
    var remedy: String? {
        switch self {
        case .readOnly: "Make the file and its directory writable by this user."
        case .diskFull: "Free some disk space."
        case .cannotOpen: "Check that the path names a file in a directory this user can read and write."
        case .corrupt: "Move the file aside; notifyd will start again with empty state."
        case .busy: "Another process keeps the database locked; stop it."
        case .ioError: "Check the disk and the file system (see dmesg)."
        default: nil
        }
    }
}

extension StoreError {
    /// Builds the error for a failed SQLite call, in the form
    /// `<path>: <action> failed: <detail> (SQLite result code N). <remedy>`.
    init(sqliteResultCode: Int32, detail: String, path: String, action: String) {
        let code = Code(sqliteResultCode: sqliteResultCode)
        var message = "\(path): \(action) failed: \(detail) (SQLite result code \(sqliteResultCode))."
        if let remedy = code.remedy { message += " " + remedy }
        self.init(code: code, path: path, message: message)
    }

    /// Builds the error for a failed file-system call, in the same form.
    init(errno number: Int32, detail: String, path: String, action: String, fallback: Code) {
        let code = Code(errno: number, fallback: fallback)
        var message = "\(path): \(action) failed: \(detail) (errno \(number))."
        if let remedy = code.remedy { message += " " + remedy }
        self.init(code: code, path: path, message: message)
    }
}
