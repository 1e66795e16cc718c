import CLinux
import Glibc

/// Where a download's bytes go: the directory (checked to be reached
/// through no symbolic link, and held open, so that every later step is
/// relative to it), the partial file's name in it, and the destination's
/// name (nil for a directory path, where the engine names the file).
struct DownloadPlace {
    /// The directory as given, without its trailing "/" ("/" for the root).
    let directory: String
    /// `NAME.<id>.part` beside the destination, or `download.<id>.part`.
    let partialName: String
    /// The destination's name; nil when the path names a directory.
    let finalName: String?

    /// The place of `path` (a file, or a directory ending in "/") for the transfer `id`.
    init(path: String, id: UInt64) {
        if path.hasSuffix("/") {
            var directory = Substring(path)
            while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
            self.directory = String(directory)
            partialName = "download.\(id).part"
            finalName = nil
        } else {
            let slash = path.lastIndex(of: "/")
            let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
            let parent = slash.map { String(path[..<$0]) } ?? "."
            directory = parent.isEmpty ? "/" : parent
            partialName = "\(name).\(id).part"
            finalName = name
        }
    }

    /// The partial file's path.
    var partialPath: String { path(of: partialName) }

    /// The path of `name` in the directory.
    func path(of name: String) -> String { directory == "/" ? "/" + name : directory + "/" + name }

    /// Opens the directory, refusing one reached through a symbolic link:
    /// its real path must be the path as given.
    ///
    /// - Returns: the directory's descriptor, for the `*at` calls.
    /// - Throws: ``TransferFault`` (failed) saying what is wrong.
    func openDirectory() throws(TransferFault) -> Int32 {
        guard let resolved = realpath(directory, nil) else {
            let error = errno
            if error == ENOENT || error == ENOTDIR { throw .failed("the destination folder does not exist") }
            throw TransferCall.fault(errno: error, "the destination folder cannot be reached")
        }
        let real = String(cString: resolved)
        free(resolved)
        guard real == directory else {
            throw .failed("the destination folder is reached through a symbolic link, which notifyd does not follow")
        }
        return try TransferCall.system("the destination folder cannot be opened") {
            open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
    }

    /// What is at `name` in the directory open at `descriptor`, not
    /// following a symbolic link: nil when nothing is.
    static func kind(of name: String, in descriptor: Int32) -> mode_t? {
        var status = stat()
        guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    /// Refuses a destination that may not be written: a symbolic link, a
    /// directory, or (without `overwrite`) any existing file.
    static func checkDestination(_ name: String, in descriptor: Int32, overwrite: Bool) throws(TransferFault) {
        switch kind(of: name, in: descriptor) {
        case nil: return
        case S_IFLNK: throw .failed("the destination is a symbolic link, which notifyd does not follow")
        case S_IFDIR: throw .failed("a folder is in the way at the destination")
        case _ where !overwrite: throw .failed("a file already exists at the destination")
        default: return
        }
    }

    /// Moves `from` to `to` in the directory open at `descriptor`, without
    /// replacing anything there.
    ///
    /// `renameat2(RENAME_NOREPLACE)` (CLinux's system call: Swift's Glibc
    /// module declares it only under `_GNU_SOURCE`); where the kernel or the
    /// file system lacks it, `linkat` (which fails
    /// when the name is taken) and `unlinkat`, just as atomic.
    ///
    /// - Returns: false when the name `to` is taken.
    static func moveWithoutReplacing(_ from: String, to: String, in descriptor: Int32) throws(TransferFault) -> Bool {
        if clinux_rename_noreplace(descriptor, from, descriptor, to) == 0 { return true }
        let error = errno
        if error == EEXIST { return false }
        guard error == EINVAL || error == ENOSYS else {
            throw TransferCall.fault(errno: error, "the file could not be moved into place")
        }
        if linkat(descriptor, from, descriptor, to, 0) != 0 {
            let error = errno
            if error == EEXIST { return false }
            throw TransferCall.fault(errno: error, "the file could not be moved into place")
        }
        try TransferCall.system("the partial file could not be removed") { unlinkat(descriptor, from, 0) }
        return true
    }

}
