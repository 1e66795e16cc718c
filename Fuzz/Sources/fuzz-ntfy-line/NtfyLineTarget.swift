@testable import NotifyPush

/// ntfy's JSON stream as the ntfy push client reads it (any bytes: the
/// server's, or anyone's between it and a plain-http loopback client): cut
/// into lines by ``NtfyLineBuffer`` in pieces whose sizes the input's first
/// byte picks (libcurl hands the body over in pieces of any size), each
/// line read by ``NtfyStreamLine``; a message must come out within the
/// client's limits. The whole input is also read as one line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNtfyLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let piece = max(1, Int(bytes.first ?? 1) * 3)
    var buffer = NtfyLineBuffer()
    var start = 0
    while start < size {
        let end = min(start + piece, size)
        buffer.take(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { line in
            precondition(line.count <= NtfyStreamLine.lineLimit, "a line over the limit")
            check(NtfyStreamLine(line))
        } overlong: {}
        start = end
    }
    precondition(buffer.pendingCount <= NtfyStreamLine.lineLimit, "a pending line over the limit")
    check(NtfyStreamLine(Array(bytes)[...]))
    return 0
}

/// A message read is one the client may emit.
private func check(_ line: NtfyStreamLine) {
    guard case .message(let message) = line else { return }
    precondition(message.body.count <= NtfyStreamLine.bodyLimit, "a body over 4096 bytes")
    precondition(NtfyMessage.isMessageID(message.id), "an id that cannot go into since=")
    precondition(NtfySettings.isTopic(message.topic), "a topic that is not ntfy's")
}
