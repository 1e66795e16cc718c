import DBus
import Glibc
import Logging
import NotifyCore
import NotifyPush

/// The XMPP push server (Prosody's `mod_unified_push`): an
/// ``XMPPPushClient`` on its own thread, whose events hop onto the bus loop.
///
/// A registration is known to the server by its ``PushServerKey``, sent
/// as both `application` and `instance` (each must be 32 bytes); the
/// server binds the endpoint to notifyd's full JID (resource `notifyd`).
/// The protocol has no unregistration: a push for a key notifyd forgot is
/// refused, and its sender gets 404.
final class XMPPServerLink: PushServerLink {
    private let client: XMPPPushClient

    /// Starts the client's thread and connects with `settings`.
    ///
    /// - Throws: ``NotifydError`` (`Failed`) when the settings are refused
    ///   by the client or its thread cannot start.
    init(settings: PushServerSettings, loop: EventLoop, report: @escaping (PushServerLinkEvent) -> Void)
        throws(NotifydError)
    {
        let xmppSettings = try Self.clientSettings(settings)
        let bound = LoopBound(report, loop: loop)
        do {
            client = try XMPPPushClient { event in
                guard let translated = Self.translate(event) else { return }
                bound.execute { $0(translated) }
            }
        } catch {
            throw NotifydError(.resourcesExhausted, error.description)
        }
        client.configure(xmppSettings)
    }

    /// The client's settings, or `InvalidArgs` with the client's reason.
    static func clientSettings(_ settings: PushServerSettings) throws(NotifydError) -> XMPPPushSettings {
        do {
            return try XMPPPushSettings(
                jid: settings.address, password: settings.password?.rawValue ?? "", host: settings.host,
                port: settings.port, caFile: settings.caFile)
        } catch {
            throw NotifydError(.invalidArgs, error.description)
        }
    }

    var registersOffline: Bool { false }

    func register(_ key: PushServerKey) { client.register(application: key.bytes, instance: key.bytes) }
    func forget(_ key: PushServerKey) {}
    func acknowledge(_ answer: PushServerAnswer) {
        if case .xmpp(let id) = answer { client.acknowledge(PushID(id)) }
    }
    func refuse(_ answer: PushServerAnswer) {
        if case .xmpp(let id) = answer { client.refuse(PushID(id)) }
    }
    func postpone(_ answer: PushServerAnswer) {
        if case .xmpp(let id) = answer { client.postpone(PushID(id)) }
    }
    var holdsCursor: Bool { false }
    func networkReturned() { client.networkReturned() }
    func stop() { client.stop() }
    func retire() { client.stopWithoutWaiting() }

    /// The client's event as the distributor sees it (on the client's thread).
    private static func translate(_ event: XMPPPushEvent) -> PushServerLinkEvent? {
        switch event {
        case .state(let state):
            switch state {
            case .connecting: return .state(.connecting)
            case .connected: return .state(.connected)
            case .disconnected(let reason): return .state(.disconnected(reason))
            case .certificateRejected(let reason):
                return .state(.disconnected("the server's certificate was refused: \(reason)"))
            case .authenticationFailed(let reason): return .state(.authenticationFailed(reason))
            }
        case .registered(let application, _, let endpoint, let expiration):
            guard let key = try? PushServerKey(application) else { return nil }
            return .registered(key, endpoint: endpoint, expiry: Self.microseconds(iso8601: expiration))
        case .registrationFailed(let application, _, let reason):
            guard let key = try? PushServerKey(application) else { return nil }
            return .registrationFailed(key, reason: reason)
        case .push(let push):
            let answer = PushServerAnswer.xmpp(push.id.rawValue)
            guard push.application == push.instance, let key = try? PushServerKey(push.application) else {
                return .unknownMessage(answer: answer)
            }
            return .message(key, body: push.body, serverID: push.id.rawValue, answer: answer)
        }
    }

    /// `2026-11-28T10:44:34Z` (UTC, as the server writes it) in Unix µs;
    /// nil for any other form.
    static func microseconds(iso8601 text: String) -> Microseconds? {
        let digits = text.utf8.map { $0 }
        guard digits.count == 20, digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-"),
            digits[10] == UInt8(ascii: "T"), digits[13] == UInt8(ascii: ":"), digits[16] == UInt8(ascii: ":"),
            digits[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int32? { Int32(String(decoding: digits[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        guard seconds > 0 else { return nil }
        return Microseconds(seconds) * 1_000_000
    }
}
