import Glibc
import WorkerThread

/// A UnifiedPush client of an XMPP server with `mod_unified_push`
/// (`http://gultsch.de/xmpp/drafts/unified-push`), on a thread of its own.
///
/// libstrophe is not thread-safe and has no loop to share, so one thread
/// owns it: while connected it sleeps in `poll` on the socket and an
/// eventfd, so it wakes only for traffic or a command (no timer while
/// idle). The methods below may be called from any thread: each leaves a
/// command in a mailbox and wakes the thread (while an attempt is under
/// way, within 100 ms). Events go to `onEvent` on the client's thread; the
/// owner hops them onto its own loop.
///
/// TLS is mandatory unless the server is on a loopback address; a wrong
/// password is not tried again until ``configure(_:)`` gives new
/// settings; any other failure is retried after ``ReconnectBackoff``'s
/// wait, or at once on ``networkReturned()``.
public final class XMPPPushClient: Sendable {
    private let runner: ClientRunner<XMPPPushCommand>

    /// The kernel's id of the client's thread (`/proc/self/task/ID`, named
    /// `notifyd-xmpp`), once it runs; 0 before.
    public var threadID: Int32 { runner.threadID }

    /// Starts the client's thread, with no settings yet (nothing connects
    /// until ``configure(_:)``).
    ///
    /// - Throws: ``XMPPPushError`` when the thread cannot be started.
    public init(onEvent: @escaping @Sendable (XMPPPushEvent) -> Void) throws(XMPPPushError) {
        do {
            runner = try ClientRunner(named: "notifyd-xmpp", stop: .stop) { mailbox in
                StropheSession(emit: onEvent).run(mailbox: mailbox)
            }
        } catch {
            throw XMPPPushError("cannot start the XMPP client's thread: \(error)")
        }
    }

    /// Connects with `settings` (ending any connection before), forgetting
    /// past failures; `nil` disconnects and stays idle.
    public func configure(_ settings: XMPPPushSettings?) { runner.post(.configure(settings)) }

    /// Asks the server for an endpoint for `application` and `instance`
    /// (32 bytes each); answered by ``XMPPPushEvent/registered(application:instance:endpoint:expiration:)``
    /// or ``XMPPPushEvent/registrationFailed(application:instance:reason:)``.
    public func register(application: [UInt8], instance: [UInt8]) {
        runner.post(.register(application: application, instance: instance))
    }

    /// Tells the server that the push was taken (its sender gets 201):
    /// call it once the message is stored.
    public func acknowledge(_ push: PushID) { runner.post(.acknowledge(push)) }

    /// Tells the server that the push has no taker (`item-not-found`: its
    /// sender gets 404).
    public func refuse(_ push: PushID) { runner.post(.refuse(push)) }

    /// Tells the server that the push could not be taken now
    /// (`recipient-unavailable`, of type `wait`: its sender gets 503 and
    /// may send it again later).
    public func postpone(_ push: PushID) { runner.post(.postpone(push)) }

    /// Connects at once if the client waits to try again (the wait starts
    /// over from 1 second); not after a refused password.
    public func networkReturned() { runner.post(.networkReturned) }

    /// Disconnects and ends the thread; returns once it has ended (at once
    /// when it was stopped before). Not from `onEvent`; the thread runs
    /// until this is called, so call it before the client is released.
    public func stop() { runner.stop() }

    /// Asks the thread to disconnect and end, and returns at once (the
    /// thread ends by itself): for an owner whose thread must not wait,
    /// such as a loop replacing one server with another. Nothing it reports
    /// afterwards is of use to the owner.
    public func stopWithoutWaiting() { runner.stopWithoutWaiting() }
}
