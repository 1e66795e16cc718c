import Glibc

/// The file an upload sends, open (never through a symbolic link), read
/// on the engine's thread as libcurl asks for its bytes.
final class UploadSource {
    private var descriptor: Int32
    /// The file's size when it was opened: the body's length.
    let size: UInt64
    /// The bytes handed to libcurl so far.
    private(set) var sent: UInt64 = 0

    /// Opens the regular file at `path`.
    ///
    /// - Throws: ``TransferFault`` (failed) saying why it cannot be sent.
    init(path: String) throws(TransferFault) {
        do {
            descriptor = try TransferCall.system("the file to upload cannot be opened") {
                open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            }
        } catch let fault where fault.errno == ELOOP {
            throw .failed("the file to upload is a symbolic link, which notifyd does not follow")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(descriptor)
            throw .failed("the file to upload is not a regular file")
        }
        size = UInt64(status.st_size)
    }

    deinit { close() }

    /// Fills `buffer` with the next bytes; 0 at the end.
    ///
    /// - Throws: ``TransferFault`` (failed) when the file cannot be read.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransferFault) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let wanted = Int(min(UInt64(buffer.count), size - min(size, sent)))
        guard wanted > 0 else { return 0 }
        let count = try TransferCall.system("the file to upload could not be read") {
            Glibc.read(descriptor, base, wanted)
        }
        guard count > 0 else { throw .failed("the file to upload got shorter while it was sent") }
        sent += UInt64(count)
        return count
    }

    /// Goes back to `offset` (libcurl sends the body again after a redirect).
    func seek(to offset: UInt64) -> Bool {
        guard offset <= size, lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else { return false }
        sent = offset
        return true
    }

    /// Closes the file (once).
    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
