import CCurl
import Glibc
import WorkerThread

/// One attempt, on the engine's thread: its request, its file, what the
/// server said, and its progress. libcurl's callbacks come here (through
/// ``CurlRequest``); the loop asks ``finished(_:)`` how it ended.
final class TransferRun {
    let attempt: TransferAttempt
    let download: PartialDownload?
    let upload: UploadSource?
    private let emit: (TransferEngineEvent) -> Void
    private(set) var request: CurlRequest?
    private var headers = ResponseHeaders()
    /// Where the `Range` sent starts; 0 when none was sent.
    private var requestedFrom: UInt64 = 0
    private var restartedWithoutRange = false
    /// Whether the body started (`.responded` went out).
    private var responded = false
    /// A final status other than 2xx, whose body was refused.
    private var refusedStatus: Int?
    /// What a callback ran into, which ended the transfer.
    private var fault: TransferFault?
    private var total: UInt64?
    /// When a byte or header last came or went, in ``MonotonicTime``.
    private(set) var lastActivity = MonotonicTime.nanoseconds()
    private var progress = ProgressThrottle()

    /// How a request ended, for the loop.
    enum Outcome {
        case ended(TransferAttemptEnd)
        /// Make the request again, from the start (a 416 to a `Range`).
        case restart
    }

    /// Opens the attempt's file and makes its first request; throws why it cannot start.
    init(_ attempt: TransferAttempt, emit: @escaping (TransferEngineEvent) -> Void) throws(TransferFault) {
        self.attempt = attempt
        self.emit = emit
        switch attempt.direction {
        case .download:
            download = try PartialDownload(path: attempt.path, id: attempt.id, overwrite: attempt.overwrite)
            upload = nil
        case .upload:
            upload = try UploadSource(path: attempt.path)
            download = nil
            total = upload?.size
        }
        do {
            if let download {
                if download.size > 0, let validator = attempt.validator, ResponseHeaders.isUsable(validator) {
                    requestedFrom = download.size
                } else if download.size > 0 {
                    try download.startOver(hashing: false)
                }
            }
            request = try CurlRequest(for: self, headers: requestHeaders())
        } catch {
            if case .failed = error.end { download?.remove() }
            close()
            throw error
        }
    }

    /// The attempt's headers, and those of a resume or of a POST.
    private func requestHeaders() -> [String] {
        var lines = attempt.headers
        if requestedFrom > 0, let validator = attempt.validator {
            lines += ["Range: bytes=\(requestedFrom)-", "If-Range: \(validator)"]
        }
        let named = { (name: String) in lines.contains { $0.lowercased().hasPrefix(name) } }
        if upload != nil, attempt.method == "POST", !named("content-type:") {
            // Not libcurl's default for a POST, application/x-www-form-urlencoded.
            lines.append("Content-Type: application/octet-stream")
        }
        return lines
    }

    /// Makes the request again without `Range`, the partial file emptied.
    func restartWithoutRange() throws(TransferFault) {
        request?.close()
        request = nil
        restartedWithoutRange = true
        requestedFrom = 0
        headers = ResponseHeaders()
        refusedStatus = nil
        try download?.startOver(hashing: false)
        request = try CurlRequest(for: self, headers: requestHeaders())
    }

    // MARK: libcurl's callbacks

    func headerArrived(_ line: UnsafeRawBufferPointer) {
        lastActivity = MonotonicTime.nanoseconds()
        headers.take(line: line)
    }

    /// Body bytes: written to the partial file; false ends the transfer.
    func bodyArrived(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = MonotonicTime.nanoseconds()
        guard let download else { return true }  // an upload's answer is not kept
        if !responded, !begin() { return false }
        do {
            try download.append(bytes)
        } catch {
            fault = error
            return false
        }
        noteProgress()
        return true
    }

    /// An upload's next bytes, into `buffer`; nil ends the transfer.
    func bodyWanted(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        lastActivity = MonotonicTime.nanoseconds()
        guard let upload else { return nil }
        if !responded {
            responded = true
            emit(.responded(id: attempt.id, resumedFrom: 0, total: upload.size, validator: nil))
        }
        do {
            let count = try upload.read(into: buffer)
            noteProgress()
            return count
        } catch {
            fault = error
            return nil
        }
    }

    /// The upload sent again from `offset`.
    func rewind(to offset: UInt64) -> Bool { upload?.seek(to: offset) ?? false }

    /// A download's body starts: a 206 continuing the partial file keeps
    /// it, else it starts over; not 2xx, or too large for the disk: false.
    private func begin() -> Bool {
        guard let download, let request else { return false }
        let status = headers.status != 0 ? headers.status : TransferCall.info(request.handle, CURLINFO_RESPONSE_CODE)
        guard (200..<300).contains(status) else {
            refusedStatus = status
            return false
        }
        do throws(TransferFault) {
            if status == 206 {
                guard requestedFrom > 0, requestedFrom == download.size, let range = headers.range,
                    range.first == requestedFrom, range.total.map({ range.last + 1 == $0 }) ?? true
                else { throw .failed("the server sent a part of the file other than the one asked for") }
                total = range.total
                try download.keep(hashing: attempt.sha256 != nil)
            } else {
                try download.startOver(hashing: attempt.sha256 != nil)
                total = TransferCall.info(request.handle, size: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
            }
            if let total, total > download.size, let free = download.freeBytes, total - download.size > free {
                throw .failed(
                    "the download needs \(EndReason.size(total - download.size)) but the disk has only \(EndReason.size(free)) free")
            }
        } catch {
            fault = error
            return false
        }
        responded = true
        progress.started(at: MonotonicTime.nanoseconds())
        emit(.responded(id: attempt.id, resumedFrom: download.size, total: total, validator: headers.validator))
        return true
    }

    // MARK: Progress

    /// The bytes in the partial file, or handed to the server.
    private var done: UInt64 { download?.size ?? upload?.sent ?? 0 }

    /// Reports progress now, or holds it back (half a second between reports).
    private func noteProgress() {
        guard progress.mayReport(at: MonotonicTime.nanoseconds()) else { return }
        emit(.progress(id: attempt.id, done: done, total: total))
    }

    /// When a held-back progress report is due; nil when none is.
    var progressDue: UInt64? { progress.due }

    /// Sends the held-back progress report if it is due at `now`.
    func flushProgress(now: UInt64) {
        guard let due = progress.due, now >= due, progress.mayReport(at: now) else { return }
        emit(.progress(id: attempt.id, done: done, total: total))
    }

    // MARK: The end

    /// How the request ended, from libcurl's `code`: moves a complete
    /// download into place.
    func finished(_ code: CURLcode) -> Outcome {
        if let fault { return .ended(fault.end) }
        guard let request else { return .ended(.retry(reason: "the transfer lost its request", retryAfter: nil)) }
        let report = EndReason.CurlReport(
            code: code, osErrno: Int32(clamping: TransferCall.info(request.handle, CURLINFO_OS_ERRNO)),
            detail: request.errorDetail, bodyStarted: responded)
        if code == CURLE_TOO_MANY_REDIRECTS || code == CURLE_UNSUPPORTED_PROTOCOL { return .ended(EndReason.curl(report)) }
        let status = refusedStatus ?? TransferCall.info(request.handle, CURLINFO_RESPONSE_CODE)
        if refusedStatus != nil || code == CURLE_OK, status != 0, !(200..<300).contains(status) {
            if status == 416, requestedFrom > 0, !restartedWithoutRange { return .restart }
            return .ended(EndReason.http(status: status, retryAfter: headers.retryDelay()))
        }
        guard code == CURLE_OK else { return .ended(EndReason.curl(report)) }
        if let upload { return .ended(.completed(path: attempt.path, bytes: upload.size)) }
        guard let download else { return .ended(.failed(reason: "the transfer has no file")) }
        if !responded, !begin() {
            return .ended(fault?.end ?? EndReason.http(status: status, retryAfter: headers.retryDelay()))
        }
        if let total, download.size != total {
            return .ended(.retry(reason: "the server sent \(download.size) bytes of \(total)", retryAfter: nil))
        }
        let url: String? = TransferCall.info(request.handle, CURLINFO_EFFECTIVE_URL)
        let suggested = { DownloadName.suggested(contentDisposition: self.headers.contentDisposition, url: url) }
        do {
            let path = try download.finish(expected: attempt.sha256, overwrite: attempt.overwrite, name: suggested)
            return .ended(.completed(path: path, bytes: download.size))
        } catch {
            return .ended(error.end)
        }
    }

    /// Removes the partial file (a failed or cancelled download).
    func discardPartial() { download?.remove() }

    /// Frees the request and closes the files (once each).
    func close() {
        request?.close()
        request = nil
        download?.close()
        upload?.close()
    }
}
