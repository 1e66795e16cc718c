import Glibc
import WorkerThread

/// A UnifiedPush client of an ntfy server (https://ntfy.sh or one's own),
/// on a thread of its own: one topic per registration, all followed
/// through one subscription stream, ntfy's JSON lines
/// (`GET <base>/<topic>,<topic>.../json?since=<id>`), caught up after a
/// reconnection from the last message seen.
///
/// libcurl runs on the client's thread (named `notifyd-ntfy`), which sleeps
/// in `curl_multi_poll` on the stream and the mailbox's eventfd: it wakes
/// for bytes (the server's keepalives, 45 s apart by default), a command,
/// or a deadline (the next attempt; the stall timeout, when the stream
/// brought nothing for ``NtfySettings/stallTimeout``), never on a timer of
/// its own. The methods below may be called from any thread: each leaves a
/// command in a mailbox and wakes the thread. Events go to `onEvent` on the
/// client's thread; the owner hops them onto its own loop.
///
/// A stream that ends or cannot open is opened again after
/// ``ReconnectBackoff``'s wait (1 s doubling to 5 minutes), at once on
/// ``networkReturned()``; HTTP refusals (401, 403, 404, 429, 5xx) are
/// ``NtfyConnectionState/disconnected(reason:)`` in words.
public final class NtfyPushClient: Sendable {
    private let runner: ClientRunner<NtfyPushCommand>

    /// The kernel's id of the client's thread (`/proc/self/task/ID`, named
    /// `notifyd-ntfy`), once it runs; 0 before.
    public var threadID: Int32 { runner.threadID }

    /// Starts the client's thread, with no settings and no topics yet
    /// (nothing connects until both are given).
    ///
    /// - Throws: ``NtfyPushError`` when the thread cannot be started.
    public init(onEvent: @escaping @Sendable (NtfyPushEvent) -> Void) throws(NtfyPushError) {
        do {
            runner = try ClientRunner(named: "notifyd-ntfy", stop: .stop) { mailbox in
                NtfyStreamSession(emit: onEvent).run(mailbox: mailbox)
            }
        } catch {
            throw NtfyPushError("cannot start the ntfy client's thread: \(error)")
        }
    }

    /// Follows the topics on the server of `settings` (ending any stream
    /// before, forgetting past failures); `nil` ends the stream and stays
    /// idle. A server other than the last one configured forgets the cursor.
    public func configure(_ settings: NtfySettings?) { runner.post(.configure(settings)) }

    /// The complete set of topics to follow: the stream is opened again
    /// when the set changes (none: no stream). `since` is the id of the
    /// last message stored (the cursor kept across restarts): messages
    /// after it are sent again by the server; `nil` keeps the client's own
    /// cursor, which it advances with each message it emits. Names that
    /// are not ntfy topics are left out, with a ``NtfyPushEvent/dropped(reason:)``.
    public func follow(topics: Set<String>, since: String?) { runner.post(.follow(topics: topics, since: since)) }

    /// The owner could not store the messages `forgotten`: the stream is
    /// opened again after `since`, the last message it stored (nil: from
    /// all the server keeps), and those come again; messages emitted
    /// before and not forgotten are not emitted twice.
    public func catchUp(since: String?, forgetting forgotten: Set<String>) {
        runner.post(.catchUp(since: since, forgetting: forgotten))
    }

    /// Opens the stream again at once: a waiting attempt starts now (the
    /// wait starts over from 1 second), and a stream from before the
    /// network changed, which may be dead unnoticed, is replaced.
    public func networkReturned() { runner.post(.networkReturned) }

    /// Ends the stream and the thread; returns once it has ended (at once
    /// when it was stopped before). Not from `onEvent`; the thread runs
    /// until this is called, so call it before the client is released.
    public func stop() { runner.stop() }

    /// Asks the thread to disconnect and end, and returns at once (the
    /// thread ends by itself): for an owner whose thread must not wait,
    /// such as a loop replacing one server with another. Nothing it reports
    /// afterwards is of use to the owner.
    public func stopWithoutWaiting() { runner.stopWithoutWaiting() }

    /// A new topic for a registration: `up` and 12 random letters and
    /// digits, as ntfy wants UnifiedPush topics (14 characters starting
    /// with `up`, else its per-subscriber rate limiting does not apply and
    /// publishing answers 507; KUnifiedPush's ntfy provider makes them so).
    public static func newTopic() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        let random = (0..<12).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] }
        return "up" + String(decoding: random, as: UTF8.self)
    }

    /// The endpoint an application server POSTs to for `topic`:
    /// `<base>/<topic>?up=1` (`up=1`: ntfy keeps a body that is not UTF-8
    /// as base64 instead of refusing it, and forwards nothing to Firebase).
    public static func endpoint(base: String, topic: String) -> String {
        var trimmed = Substring(base)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return "\(trimmed)/\(topic)?up=1"
    }
}
