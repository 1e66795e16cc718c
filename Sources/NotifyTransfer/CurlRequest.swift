import CCurl
import Glibc

/// libcurl's easy handle for one request of an attempt, with what must
/// outlive it: the error buffer, the header list, and the run its
/// callbacks reach, retained for as long as the handle lives (released by
/// ``close()``, after `curl_easy_cleanup`, the last moment libcurl could
/// call back). On the engine's thread only.
final class CurlRequest {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var callbackTarget: Unmanaged<TransferRun>?
    private var closed = false

    /// libcurl's receive buffer, the most body bytes one write callback
    /// brings. A 200 MB loopback download from nginx onto a tmpfs, median
    /// of 3 (NotifyTransferTests' throughput measurement, 2 CPUs): 16 KB
    /// (libcurl's default) 580 MB/s, 256 KB 700 MB/s, 512 KB 890 MB/s,
    /// 1 MB 820 MB/s; `curl -o` in the same runs 620-700 MB/s.
    static let bufferSize = 512 * 1024

    /// A handle set up for `run`'s attempt, sending `headers` ("Name: value") besides the attempt's own.
    ///
    /// - Throws: ``TransferFault`` when libcurl cannot make or set it up.
    init(for run: TransferRun, headers: [String]) throws(TransferFault) {
        handle = try TransferCall.made(TransferCall.curlReady ? notifyd_curl_easy_init() : nil, "a libcurl transfer")
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        callbackTarget = Unmanaged.passRetained(run)
        do {
            try configure(run.attempt, headers: headers)
            if let upload = run.upload { try configureUpload(method: run.attempt.method, size: upload.size) }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// libcurl's own message of the failure (`CURLOPT_ERRORBUFFER`), without its line end.
    var errorDetail: String {
        var text = String(cString: errorBuffer)
        while text.last == "\n" { text.removeLast() }
        return text
    }

    private func configure(_ attempt: TransferAttempt, headers: [String]) throws(TransferFault) {
        try TransferCall.set(handle, CURLOPT_URL, attempt.url)
        try TransferCall.set(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        try TransferCall.set(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try TransferCall.set(handle, CURLOPT_FOLLOWLOCATION, 1)
        try TransferCall.set(handle, CURLOPT_MAXREDIRS, 10)
        // libcurl must leave signals alone: it runs on a thread of a
        // process with its own handlers.
        try TransferCall.set(handle, CURLOPT_NOSIGNAL, 1)
        // No byte for 60 s: the connection is taken for dead (libcurl then
        // wakes the thread once a second while a transfer runs, never when none does).
        try TransferCall.set(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        try TransferCall.set(handle, CURLOPT_LOW_SPEED_TIME, 60)
        try TransferCall.set(handle, CURLOPT_BUFFERSIZE, Self.bufferSize)
        try TransferCall.set(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        try TransferCall.set(handle, CURLOPT_USERAGENT, TransferEngine.userAgent)
        // The system's CAs, or the bundle the curl tool would take.
        if let bundle = getenv("CURL_CA_BUNDLE").map({ String(cString: $0) }), !bundle.isEmpty {
            try TransferCall.set(handle, CURLOPT_CAINFO, bundle)
        }
        for line in headers {
            guard let appended = notifyd_curl_slist_append(headerList, line) else {
                throw .retry("a request header could not be kept: out of memory")
            }
            headerList = appended
        }
        try TransferCall.check(notifyd_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), "setting the headers")
        try TransferCall.check(
            notifyd_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "setting the error buffer")
        let target = callbackTarget?.toOpaque()
        try TransferCall.check(
            notifyd_curl_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, transferHeaderCallback),
            "setting the header callback")
        try TransferCall.check(
            notifyd_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, target), "setting the header callback's data")
        try TransferCall.check(
            notifyd_curl_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, transferWriteCallback),
            "setting the write callback")
        try TransferCall.check(
            notifyd_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, target), "setting the write callback's data")
    }

    /// `PUT` (`CURLOPT_UPLOAD`) or `POST` of `size` bytes read from the run's file.
    private func configureUpload(method: String, size: UInt64) throws(TransferFault) {
        let target = callbackTarget?.toOpaque()
        try TransferCall.check(
            notifyd_curl_easy_setopt_read_function(handle, CURLOPT_READFUNCTION, transferReadCallback),
            "setting the read callback")
        try TransferCall.check(
            notifyd_curl_easy_setopt_pointer(handle, CURLOPT_READDATA, target), "setting the read callback's data")
        try TransferCall.check(
            notifyd_curl_easy_setopt_seek_function(handle, CURLOPT_SEEKFUNCTION, transferSeekCallback),
            "setting the seek callback")
        try TransferCall.check(
            notifyd_curl_easy_setopt_pointer(handle, CURLOPT_SEEKDATA, target), "setting the seek callback's data")
        try TransferCall.set(handle, CURLOPT_UPLOAD_BUFFERSIZE, Self.bufferSize)
        if method == "POST" {
            try TransferCall.set(handle, CURLOPT_POST, 1)
            try TransferCall.set(handle, CURLOPT_POSTFIELDSIZE_LARGE, offset: size)
        } else {
            try TransferCall.set(handle, CURLOPT_UPLOAD, 1)
            try TransferCall.set(handle, CURLOPT_INFILESIZE_LARGE, offset: size)
        }
    }

    /// Frees the handle, then what it used (once): libcurl no longer calls back after this.
    func close() {
        guard !closed else { return }
        closed = true
        notifyd_curl_easy_cleanup(handle)
        notifyd_curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer.deallocate()
        callbackTarget?.release()
        callbackTarget = nil
    }
}

/// The run a callback's user data stands for.
private func run(_ userdata: UnsafeMutableRawPointer) -> TransferRun {
    Unmanaged<TransferRun>.fromOpaque(userdata).takeUnretainedValue()
}

/// libcurl's header callback: each header line of each response.
let transferHeaderCallback: curl_write_callback = { data, size, count, userdata in
    let total = size &* count
    guard let data, let userdata else { return 0 }
    run(userdata).headerArrived(UnsafeRawBufferPointer(start: data, count: total))
    return total
}

/// libcurl's write callback: the body's bytes; fewer than given ends the transfer.
let transferWriteCallback: curl_write_callback = { data, size, count, userdata in
    let total = size &* count
    guard let data, let userdata else { return 0 }
    return run(userdata).bodyArrived(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
}

/// libcurl's read callback: an upload's next bytes.
let transferReadCallback: curl_read_callback = { buffer, size, count, userdata in
    guard let buffer, let userdata else { return Int(CURL_READFUNC_ABORT) }
    let wanted = UnsafeMutableRawBufferPointer(start: buffer, count: size &* count)
    return run(userdata).bodyWanted(into: wanted) ?? Int(CURL_READFUNC_ABORT)
}

/// libcurl's seek callback: an upload sent again from `offset`.
let transferSeekCallback: curl_seek_callback = { userdata, offset, origin in
    guard let userdata, origin == SEEK_SET, offset >= 0 else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    return run(userdata).rewind(to: UInt64(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
}
