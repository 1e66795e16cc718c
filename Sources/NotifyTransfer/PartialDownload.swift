import Glibc

/// A download's partial file, open, beside its destination: written with
/// plain `write(2)` on the engine's thread, hashed as it grows when a
/// SHA-256 is expected, streamed to the disk as it grows
/// (``WritebackPacer``), synced and moved into place at the end.
final class PartialDownload {
    let place: DownloadPlace
    private var directoryDescriptor: Int32
    private var descriptor: Int32
    /// The bytes in the file now.
    private(set) var size: UInt64
    private var hasher: SHA256Hasher?
    private var pacer = WritebackPacer(from: 0)

    /// Opens (or creates) the partial file of `path` for the transfer `id`,
    /// never through a symbolic link, after refusing a destination that may
    /// not be written.
    ///
    /// - Throws: ``TransferFault`` (failed) saying what is in the way.
    init(path: String, id: UInt64, overwrite: Bool) throws(TransferFault) {
        place = DownloadPlace(path: path, id: id)
        directoryDescriptor = try place.openDirectory()
        do throws(TransferFault) {
            if let finalName = place.finalName {
                try DownloadPlace.checkDestination(finalName, in: directoryDescriptor, overwrite: overwrite)
            }
            let partialName = place.partialName
            let directory = directoryDescriptor
            descriptor = try Self.openPartial(partialName, in: directory)
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                Glibc.close(descriptor)
                throw .failed("something other than a file is in the way of the partial file")
            }
            size = UInt64(status.st_size)
        } catch {
            Glibc.close(directoryDescriptor)
            throw error
        }
    }

    private static func openPartial(_ name: String, in directory: Int32) throws(TransferFault) -> Int32 {
        do {
            return try TransferCall.system("the partial file cannot be opened") {
                openat(directory, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
            }
        } catch let fault where fault.errno == ELOOP {
            throw .failed("a symbolic link is in the way of the partial file")
        }
    }

    deinit { close() }

    /// Empties the file and writes from its start (hashing from nothing
    /// when `hashing`).
    func startOver(hashing: Bool) throws(TransferFault) {
        try TransferCall.system("the partial file could not be emptied") { ftruncate(descriptor, 0) }
        try TransferCall.system("the partial file could not be emptied") { lseek(descriptor, 0, SEEK_SET) }
        size = 0
        pacer = WritebackPacer(from: 0)
        hasher = hashing ? try SHA256Hasher() : nil
    }

    /// Keeps the file's `size` bytes and writes after them (hashing them
    /// first when `hashing`).
    func keep(hashing: Bool) throws(TransferFault) {
        try TransferCall.system("the partial file could not be read") { lseek(descriptor, off_t(size), SEEK_SET) }
        pacer = WritebackPacer(from: size)
        hasher = nil
        if hashing {
            let fresh = try SHA256Hasher()
            try fresh.update(file: descriptor, length: size)
            hasher = fresh
        }
    }

    /// The bytes free for this file on its disk (`statvfs`); nil when unknown.
    var freeBytes: UInt64? {
        var status = statvfs()
        guard fstatvfs(descriptor, &status) == 0 else { return nil }
        return UInt64(status.f_bavail).multipliedReportingOverflow(by: UInt64(status.f_frsize)).partialValue
    }

    /// Writes `bytes` at the end of the file (and into the hash).
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferFault) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = try TransferCall.system("the file could not be written") {
                write(descriptor, base + written, bytes.count - written)
            }
            written += count
        }
        try hasher?.update(bytes)
        size += UInt64(bytes.count)
        try pacer.wrote(upTo: size, descriptor: descriptor)
    }

    /// Syncs the file, checks its SHA-256 against `expected` (lowercase
    /// hex) when given, moves it into place and syncs the directory.
    ///
    /// - Parameter name: the name for a directory path, asked only then.
    /// - Returns: the file's final path.
    /// - Throws: ``TransferFault`` (failed) on a mismatch, an existing
    ///   destination without `overwrite`, or a failed system call.
    func finish(expected: String?, overwrite: Bool, name: () -> String) throws(TransferFault) -> String {
        try TransferCall.system("the file could not be synced to disk") { fsync(descriptor) }
        if let expected {
            let digest = try hasher?.finish()
            guard digest == expected.lowercased() else {
                throw .failed("the downloaded file's SHA-256 checksum does not match the one expected")
            }
        }
        let finalName = try moveIntoPlace(overwrite: overwrite, name: name)
        try TransferCall.system("the folder could not be synced to disk") { fsync(directoryDescriptor) }
        return place.path(of: finalName)
    }

    private func moveIntoPlace(overwrite: Bool, name: () -> String) throws(TransferFault) -> String {
        let directory = directoryDescriptor
        let partial = place.partialName
        if let finalName = place.finalName {
            try DownloadPlace.checkDestination(finalName, in: directory, overwrite: overwrite)
            if overwrite {
                try TransferCall.system("the file could not be moved into place") {
                    renameat(directory, partial, directory, finalName)
                }
            } else if try !DownloadPlace.moveWithoutReplacing(partial, to: finalName, in: directory) {
                throw .failed("a file already exists at the destination")
            }
            return finalName
        }
        let suggested = name()
        if overwrite {
            let kind = DownloadPlace.kind(of: suggested, in: directory)
            if kind == nil || kind == S_IFREG || kind == S_IFLNK {
                try TransferCall.system("the file could not be moved into place") {
                    renameat(directory, partial, directory, suggested)
                }
                return suggested
            }
        }
        for number in 0...9_999 {
            let candidate = DownloadName.candidate(suggested, number: number)
            if try DownloadPlace.moveWithoutReplacing(partial, to: candidate, in: directory) { return candidate }
        }
        throw .failed("every name like \(suggested) is taken in the destination folder")
    }

    /// Removes the partial file (never through a symbolic link: `unlinkat`
    /// removes a link itself).
    func remove() {
        _ = unlinkat(directoryDescriptor, place.partialName, 0)
    }

    /// Closes the file and the directory (once).
    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        if directoryDescriptor >= 0 { Glibc.close(directoryDescriptor) }
        descriptor = -1
        directoryDescriptor = -1
    }
}
