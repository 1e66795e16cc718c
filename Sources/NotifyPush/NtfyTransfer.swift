import CCurl
import Glibc
import WorkerThread

/// One attempt at the subscription stream: libcurl's easy handle for
/// `GET <base>/<topics>/json[?since=...]`, its error buffer, and the bytes
/// it brought, cut into lines for the session. On the client's thread only.
///
/// libcurl calls ``ntfyWriteCallback`` with the transfer passed unretained:
/// the session holds the transfer until the handle is cleaned up, which is
/// the last moment libcurl could call it.
final class NtfyTransfer {
    let handle: UnsafeMutableRawPointer
    private unowned let session: NtfyStreamSession
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var lines = NtfyLineBuffer()
    private var closed = false
    /// The HTTP status, once the body starts; 0 before.
    private(set) var status = 0
    /// The start of a refusal's body (ntfy explains itself in JSON).
    private var refusalBody: [UInt8] = []
    /// Whether the server opened the stream (its `open` event).
    var connected = false
    /// When the last byte came (or the attempt started), in ``MonotonicTime``.
    private(set) var lastByte = MonotonicTime.nanoseconds()

    /// How much of a refusal's body is kept.
    static let refusalLimit = 1024

    /// An easy handle set up for `url`.
    ///
    /// - Throws: ``NtfyPushError`` when libcurl cannot make or set it up.
    init(session: NtfyStreamSession, url: String) throws(NtfyPushError) {
        handle = try CurlResult.made(notifyd_curl_easy_init(), "a transfer")
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        self.session = session
        do {
            try configure(url: url)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func configure(url: String) throws(NtfyPushError) {
        try CurlResult.set(handle, CURLOPT_URL, url)
        try CurlResult.set(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        // libcurl must leave signals alone: it runs on a thread of a
        // process with its own handlers (no SIGALRM for name lookups, no
        // SIGPIPE disposition changed under the other threads).
        try CurlResult.set(handle, CURLOPT_NOSIGNAL, 1)
        // A dead peer is found by the kernel's probes (no wake-up here);
        // a silent server by the session's stall timeout. No
        // CURLOPT_LOW_SPEED_* nor progress callback: either makes libcurl
        // wake every second.
        try CurlResult.set(handle, CURLOPT_TCP_KEEPALIVE, 1)
        try CurlResult.set(handle, CURLOPT_TCP_KEEPIDLE, 60)
        try CurlResult.set(handle, CURLOPT_TCP_KEEPINTVL, 60)
        // No CURLOPT_CONNECTTIMEOUT either: libcurl leaves its timer armed
        // after the connection is made, a wake-up that long after each
        // connection (30 s for 30); its default of 300 s is past what an
        // idle client may do anyway, and the session's stall timeout,
        // counted from the attempt's start, ends a connection that hangs.
        // HTTP/1.1, as ntfy's own clients stream: one connection per stream.
        try CurlResult.set(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        try CurlResult.set(handle, CURLOPT_USERAGENT, "notifyd")
        try CurlResult.check(
            notifyd_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "setting the error buffer")
        try CurlResult.check(
            notifyd_curl_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, ntfyWriteCallback),
            "setting the write callback")
        try CurlResult.check(
            notifyd_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()),
            "setting the write callback's data")
    }

    /// Trusts the CAs of `caFile` besides the system's.
    ///
    /// `CURLOPT_CAINFO` would replace libcurl's CA bundle (on Debian the
    /// system's CAs would stay trusted only through its default
    /// `CURLOPT_CAPATH`, which another build may not have). The bundle is
    /// given as one blob instead: libcurl's default bundle (its
    /// `CURLINFO_CAINFO`), then the file; read at each attempt, so a
    /// corrected file is used at the next.
    ///
    /// - Throws: ``NtfyPushError`` when the file cannot be read.
    func trust(caFile: String) throws(NtfyPushError) {
        var bundle: [UInt8] = []
        if let defaultPath: String = CurlResult.info(handle, CURLINFO_CAINFO),
            let system = try? readFile(defaultPath, limit: 8 << 20)
        {
            bundle = system + [0x0A]
        }
        bundle += try readFile(caFile, limit: 1 << 20)
        try CurlResult.check(
            bundle.withUnsafeBytes { notifyd_curl_easy_setopt_blob(handle, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) },
            "setting the CAs")
    }

    /// Frees the handle (once): libcurl no longer calls back after this.
    func close() {
        guard !closed else { return }
        closed = true
        notifyd_curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Bytes of the body, from libcurl.
    fileprivate func received(_ bytes: UnsafeRawBufferPointer) {
        lastByte = MonotonicTime.nanoseconds()
        if status == 0 { status = CurlResult.info(handle, CURLINFO_RESPONSE_CODE) }
        guard status == 200 else {
            refusalBody += bytes.prefix(Self.refusalLimit - refusalBody.count)
            return
        }
        lines.take(bytes) { line in
            session.lineArrived(line, on: self)
        } overlong: {
            session.emit(.dropped(reason: "a line from the ntfy server longer than \(NtfyStreamLine.lineLimit) bytes was left out"))
        }
    }

    /// How the transfer ended, from libcurl's `result`.
    func end(_ result: CURLcode) -> TransferEnd {
        if status == 0 { status = CurlResult.info(handle, CURLINFO_RESPONSE_CODE) }
        let detail = String(cString: errorBuffer).trimmingSuffix { $0 == "\n" }
        return TransferEnd(code: result, detail: detail, status: status, serverText: serverText, wasConnected: connected)
    }

    /// What a refusal's body said: ntfy's `{"error": ...}`, else its printable start.
    private var serverText: String? {
        guard !refusalBody.isEmpty else { return nil }
        let line = refusalBody.prefix { $0 != 0x0A }
        if let object = try? NtfyJSONObject(parsing: line), case .string(let error) = object["error"] {
            return String(error.prefix(200))
        }
        let printable = refusalBody.prefix(200).map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: " ") }
        return String(decoding: printable, as: UTF8.self)
    }
}

/// libcurl's write callback: every byte of the body goes to the transfer.
let ntfyWriteCallback: curl_write_callback = { data, size, count, userdata in
    let total = size &* count
    guard let userdata, let data else { return 0 }
    Unmanaged<NtfyTransfer>.fromOpaque(userdata).takeUnretainedValue()
        .received(UnsafeRawBufferPointer(start: data, count: total))
    return total
}

extension String {
    /// The string without the characters at its end that `drop` takes.
    fileprivate func trimmingSuffix(while drop: (Character) -> Bool) -> String {
        var text = Substring(self)
        while let last = text.last, drop(last) { text = text.dropLast() }
        return String(text)
    }
}

/// The bytes of the file at `path`, at most `limit`.
///
/// - Throws: ``NtfyPushError`` saying why it cannot be read.
func readFile(_ path: String, limit: Int) throws(NtfyPushError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
        throw NtfyPushError("the CA file \(path) cannot be read: \(String(cString: strerror(errno)))")
    }
    defer { Glibc.close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else {
            throw NtfyPushError("the CA file \(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        if count == 0 { return bytes }
        bytes += chunk.prefix(count)
        guard bytes.count <= limit else { throw NtfyPushError("the CA file \(path) is larger than \(limit) bytes") }
    }
}
