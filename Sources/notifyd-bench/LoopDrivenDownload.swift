import CCurl
import CLinux
import DBus
import Glibc
import NotifyTestingCore
import NotifyTransfer

/// libcurl driven from an ``EventLoop`` (the variant the engine did not
/// take): `curl_multi_socket_action` on the loop's epoll and timers, the
/// download's writes, writeback (the engine's `WritebackPacer`) and final
/// `fsync` on the loop's own thread, as they would be on notifyd's bus thread. Everything here runs on
/// `thread`'s loop; ``download(url:to:)`` waits for the end from outside.
final class LoopDrivenDownload: @unchecked Sendable {
    // Unchecked: every field but `thread` is touched only on the loop's thread.
    let thread: EventLoopThread
    private var multi: UnsafeMutableRawPointer?
    private var sockets: [Int32: EventLoop.DescriptorID] = [:]
    private var timer: EventLoop.TimerID?
    private var current: Download?

    /// One download's file and handle.
    fileprivate final class Download: @unchecked Sendable {
        // Unchecked: made outside the loop, then touched only on it until `done`.
        let handle: UnsafeMutableRawPointer
        let descriptor: Int32
        var size: UInt64 = 0
        var pacer = WritebackPacer(from: 0)
        var failure: String?
        let done = Semaphore()
        init(handle: UnsafeMutableRawPointer, descriptor: Int32) {
            self.handle = handle
            self.descriptor = descriptor
        }
    }

    init() throws(BenchFailure) {
        guard notifyd_curl_global_init() == CURLE_OK, let multi = notifyd_curl_multi_init() else {
            throw BenchFailure("libcurl cannot start: \(notifyd_curl_load_error().map { String(cString: $0) } ?? "out of memory")")
        }
        self.multi = multi
        do {
            thread = try EventLoopThread(name: "bench-curl-loop")
        } catch {
            notifyd_curl_multi_cleanup(multi)
            throw BenchFailure("cannot start the loop thread: \(error)")
        }
        let target = Unmanaged.passUnretained(self).toOpaque()
        _ = notifyd_curl_multi_setopt_socket_function(multi, loopSocketCallback)
        _ = notifyd_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, target)
        _ = notifyd_curl_multi_setopt_timer_function(multi, loopTimerCallback)
        _ = notifyd_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, target)
    }

    /// Frees libcurl's handle on the loop (its cached connection closes),
    /// drops the loop's timer and watches, whose closures hold `self`, and
    /// then stops the loop: nothing on it refers back here any more.
    func close() {
        let finished = Semaphore()
        thread.loop.execute { [self] in
            if let multi { notifyd_curl_multi_cleanup(multi) }
            multi = nil
            if let timer { thread.loop.cancelTimer(timer) }
            timer = nil
            for id in sockets.values { thread.loop.removeDescriptor(id) }
            sockets = [:]
            finished.signal()
        }
        finished.wait()
        thread.stop()
    }

    /// The loop thread's kernel id.
    func threadID() -> Int32 {
        let answer = Semaphore()
        nonisolated(unsafe) var id: Int32 = 0
        thread.loop.execute {
            id = clinux_thread_id()
            answer.signal()
        }
        answer.wait()
        return id
    }

    /// Downloads `url` to `path` (written, streamed out every 16 MiB as the
    /// engine does, synced), waiting from outside the loop for the end.
    func download(url: String, to path: String) throws(BenchFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchFailure.system("cannot create \(path)", errno: errno) }
        guard let handle = notifyd_curl_easy_init() else {
            Glibc.close(descriptor)
            throw BenchFailure("libcurl cannot make a handle")
        }
        let download = Download(handle: handle, descriptor: descriptor)
        _ = notifyd_curl_easy_setopt_string(handle, CURLOPT_URL, url)
        _ = notifyd_curl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 512 * 1024)
        _ = notifyd_curl_easy_setopt_long(handle, CURLOPT_FAILONERROR, 1)
        // Bounded: libcurl ends a download that cannot connect in 30 s or
        // stalls for 60 s, and the wait below ends with it.
        _ = notifyd_curl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 30)
        _ = notifyd_curl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = notifyd_curl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 60)
        _ = notifyd_curl_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, loopWriteCallback)
        _ = notifyd_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(download).toOpaque())
        thread.loop.execute { [self] in
            current = download
            guard let multi, notifyd_curl_multi_add_handle(multi, download.handle) == CURLM_OK else {
                download.failure = "libcurl refused the handle"
                return download.done.signal()
            }
        }
        download.done.wait()
        notifyd_curl_easy_cleanup(handle)
        Glibc.close(descriptor)
        if let failure = download.failure { throw BenchFailure("the loop-driven download of \(url) failed: \(failure)") }
    }

    // MARK: On the loop

    fileprivate func watch(_ socket: Int32, what: Int32) {
        if what == CURL_POLL_REMOVE {
            if let id = sockets.removeValue(forKey: socket) { thread.loop.removeDescriptor(id) }
            return
        }
        var events: EventLoop.Events = []
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { events.insert(.readable) }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { events.insert(.writable) }
        if let id = sockets[socket] {
            try? thread.loop.updateDescriptor(id, events: events)
        } else {
            sockets[socket] = try? thread.loop.addDescriptor(socket, events: events) { [self] ready in
                var flags: Int32 = 0
                if ready.contains(.readable) { flags |= CURL_CSELECT_IN }
                if ready.contains(.writable) { flags |= CURL_CSELECT_OUT }
                if !ready.isDisjoint(with: [.error, .hangup]) { flags |= CURL_CSELECT_ERR }
                act(socket: socket, flags: flags)
            }
        }
    }

    fileprivate func setTimer(milliseconds: Int) {
        if let timer { thread.loop.cancelTimer(timer) }
        timer = nil
        guard milliseconds >= 0 else { return }
        timer = thread.loop.scheduleTimer(afterNanoseconds: UInt64(milliseconds) * 1_000_000) { [self] in
            timer = nil
            act(socket: CURL_SOCKET_TIMEOUT, flags: 0)
        }
    }

    private func act(socket: Int32, flags: Int32) {
        guard let multi else { return }
        var running: Int32 = 0
        _ = notifyd_curl_multi_socket_action(multi, socket, flags, &running)
        var queued: Int32 = 0
        while let message = notifyd_curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let download = current, message.pointee.easy_handle == download.handle
            else { continue }
            let code = message.pointee.data.result
            notifyd_curl_multi_remove_handle(multi, download.handle)
            current = nil
            if code != CURLE_OK {
                download.failure = download.failure ?? String(cString: notifyd_curl_easy_strerror(code))
            } else if fsync(download.descriptor) != 0 {
                download.failure = "fsync: errno \(errno)"
            }
            download.done.signal()
        }
    }

    fileprivate static func write(_ bytes: UnsafeRawBufferPointer, into download: Download) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var written = 0
        while written < bytes.count {
            let count = Glibc.write(download.descriptor, base + written, bytes.count - written)
            guard count > 0 else { return 0 }
            written += count
        }
        download.size += UInt64(bytes.count)
        do {
            try download.pacer.wrote(upTo: download.size, descriptor: download.descriptor)
        } catch {
            download.failure = "\(error.end)"
            return 0
        }
        return bytes.count
    }
}

private func loopSocketCallback(
    _ easy: UnsafeMutableRawPointer?, _ socket: curl_socket_t, _ what: Int32, _ target: UnsafeMutableRawPointer?,
    _ socketData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let target else { return 0 }
    Unmanaged<LoopDrivenDownload>.fromOpaque(target).takeUnretainedValue().watch(socket, what: what)
    return 0
}

private func loopTimerCallback(_ multi: UnsafeMutableRawPointer?, _ milliseconds: Int, _ target: UnsafeMutableRawPointer?) -> Int32 {
    guard let target else { return 0 }
    Unmanaged<LoopDrivenDownload>.fromOpaque(target).takeUnretainedValue().setTimer(milliseconds: milliseconds)
    return 0
}

private func loopWriteCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ target: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let target else { return 0 }
    let download = Unmanaged<LoopDrivenDownload.Download>.fromOpaque(target).takeUnretainedValue()
    return LoopDrivenDownload.write(UnsafeRawBufferPointer(start: data, count: size * count), into: download)
}
