import BrowserBridge
import Glibc

/// What the browser writes to `notifyd-browser-host`'s standard input:
/// native messaging frames (a 32-bit length, then that many bytes of JSON),
/// read by ``NativeMessageReader`` from a descriptor (an unlinked
/// scratch file holding the bytes), each parsed as JSON, decoded as a ``BrowserMessage`` and turned
/// into notifyd's calls by a ``DownloadReporter``, as the host does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNativeFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let fd = scratch
    precondition(ftruncate(fd, 0) == 0, "the scratch file cannot be emptied")
    var written = 0
    while written < size {
        let count = pwrite(fd, data + written, size - written, off_t(written))
        precondition(count > 0, "the scratch file cannot be written")
        written += count
    }
    lseek(fd, 0, SEEK_SET)
    let reader = NativeMessageReader(descriptor: fd)
    var reporter = DownloadReporter(app: "org.mozilla.firefox", profile: "default")
    var now: UInt64 = 0
    while true {
        switch reader.next() {
        case .end:
            return 0
        case .tooLong(let length):
            precondition(length > NativeMessageReader.maximumLength, "a frame within the limit was skipped")
        case .message(let payload):
            precondition(payload.count <= Int(NativeMessageReader.maximumLength), "a frame over the limit was kept")
            now += 100_000_000
            guard let json = try? JSONValue.parse(payload), let message = try? BrowserMessage.decode(json) else {
                continue
            }
            _ = reporter.calls(for: message, now: now)
        }
    }
}

/// Builds the globals the target reads before the first input, so that
/// libFuzzer's leak check (allocations an input leaves behind) does not
/// count them.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    _ = scratch
    return 0
}

/// One scratch file for every input, unlinked at once.
private let scratch: Int32 = {
    var path = Array("/tmp/notifyd-fuzz-frames-XXXXXX".utf8CString)
    let fd = mkstemp(&path)
    precondition(fd >= 0, "no scratch file in /tmp")
    unlink(path)
    return fd
}()
