import DBus
import NotifyCore
import NotifyPush

/// An ntfy server: an ``NtfyPushClient`` on its own thread following one
/// topic per registration through one stream, its events hopped onto the
/// bus loop.
///
/// A registration's topic is made of its ``PushServerKey`` (`up` and 12
/// letters and digits of its random bytes), so it needs no storage of its
/// own; its endpoint is `<server>/<topic>?up=1`, known at once (ntfy has
/// no registration step, and its endpoints do not expire). ntfy has no
/// acknowledgement: notifyd stores the ID of the last message it stored,
/// and a stream opened later asks for what came after it (`since=`).
final class NtfyServerLink: PushServerLink {
    private let client: NtfyPushClient
    private let base: String
    /// The topics followed and where their events go, on the bus loop.
    private let router: TopicRouter
    private let loop: EventLoop
    /// The ID of the last message stored.
    private var cursor: String?
    /// Messages not stored, to be read again from the stream: from the
    /// last message stored before the first of them, once `catchUpTimer`
    /// fires.
    private var rewind: (since: String?, forgotten: Set<String>)?
    private var catchUpTimer: EventLoop.TimerID?
    /// The wait before reading messages again: from 1 s, doubling to 5
    /// minutes while messages cannot be stored, back to 1 s once one is.
    private var catchUpBackoff = ReconnectBackoff()

    var registersOffline: Bool { true }

    /// Starts the client's thread with `settings`, from `cursor` (the last
    /// message ID stored).
    ///
    /// - Throws: `InvalidArgs` for settings the client refuses, `ResourcesExhausted`
    ///   when its thread cannot start.
    init(
        settings: PushServerSettings, cursor: String?, loop: EventLoop,
        report: @escaping (PushServerLinkEvent) -> Void
    ) throws(NotifydError) {
        let clientSettings = try Self.clientSettings(settings)
        let router = TopicRouter(report: report)
        self.router = router
        self.loop = loop
        base = settings.address
        self.cursor = cursor
        let bound = LoopBound(router, loop: loop)
        do {
            client = try NtfyPushClient { event in bound.execute { $0.route(event) } }
        } catch {
            throw NotifydError(.resourcesExhausted, error.description)
        }
        client.configure(clientSettings)
    }

    /// The client's settings, or `InvalidArgs` with the client's reason.
    static func clientSettings(_ settings: PushServerSettings) throws(NotifydError) -> NtfySettings {
        do {
            return try NtfySettings(baseURL: settings.address, caFile: settings.caFile)
        } catch {
            throw NotifydError(.invalidArgs, error.description)
        }
    }

    /// The topic of a registration: `up` and 12 of [A-Za-z0-9] from its key.
    static func topic(of key: PushServerKey) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return "up" + String(decoding: key.bytes.prefix(12).map { alphabet[Int($0) % alphabet.count] }, as: UTF8.self)
    }

    func register(_ key: PushServerKey) {
        let topic = Self.topic(of: key)
        if router.keysByTopic.updateValue(key, forKey: topic) == nil { follow() }
        // Reported after this turn, as a server's answer would be: the
        // caller is still setting up what waits for it.
        let endpoint = NtfyPushClient.endpoint(base: base, topic: topic)
        loop.runSoon { [router] in router.report(.registered(key, endpoint: endpoint, expiry: nil)) }
    }

    func forget(_ key: PushServerKey) {
        if router.keysByTopic.removeValue(forKey: Self.topic(of: key)) != nil { follow() }
    }

    /// ntfy's message is stored: a later stream starts after it.
    func acknowledge(_ answer: PushServerAnswer) {
        guard case .ntfy(let id) = answer else { return }
        cursor = id
        catchUpBackoff = ReconnectBackoff()
    }

    /// ntfy cannot be told; the message is left behind.
    func refuse(_ answer: PushServerAnswer) {
        guard case .ntfy(let id) = answer else { return }
        cursor = id
    }

    /// ntfy cannot be told either, but keeps what it was sent: the stream
    /// is read again, after a wait, from the last message stored before
    /// this one, and only the messages not stored are taken again.
    func postpone(_ answer: PushServerAnswer) {
        guard case .ntfy(let id) = answer else { return }
        if rewind == nil { rewind = (cursor, []) }
        rewind?.forgotten.insert(id)
        guard catchUpTimer == nil else { return }
        let wait = UInt64(catchUpBackoff.failed().components.seconds) * 1_000_000_000
        catchUpTimer = loop.scheduleTimer(afterNanoseconds: wait) { [weak self] in self?.catchUp() }
    }

    var holdsCursor: Bool { rewind != nil }

    func networkReturned() { client.networkReturned() }

    func stop() {
        cancelCatchUp()
        client.stop()
    }

    func retire() {
        cancelCatchUp()
        client.stopWithoutWaiting()
    }

    private func catchUp() {
        catchUpTimer = nil
        guard let rewind else { return }
        self.rewind = nil
        client.catchUp(since: rewind.since, forgetting: rewind.forgotten)
    }

    private func cancelCatchUp() {
        if let catchUpTimer { loop.cancelTimer(catchUpTimer) }
        catchUpTimer = nil
    }

    private func follow() {
        client.follow(topics: Set(router.keysByTopic.keys), since: cursor)
    }
}

/// The ntfy link's topics and the distributor's report, on the bus loop:
/// the client's events become the link's, a message naming its
/// registration's key.
private final class TopicRouter {
    var keysByTopic: [String: PushServerKey] = [:]
    let report: (PushServerLinkEvent) -> Void

    init(report: @escaping (PushServerLinkEvent) -> Void) {
        self.report = report
    }

    func route(_ event: NtfyPushEvent) {
        switch event {
        case .state(.connecting): report(.state(.connecting))
        case .state(.connected): report(.state(.connected))
        case .state(.disconnected(let reason)): report(.state(.disconnected(reason)))
        case .state(.certificateRejected(let reason)):
            report(.state(.disconnected("the server's certificate was refused: \(reason)")))
        case .message(let topic, let id, _, let body):
            guard let key = keysByTopic[topic] else { return }  // a topic just forgotten
            report(.message(key, body: body, serverID: id, answer: .ntfy(id)))
        case .dropped:
            break  // the client said why in its event; nothing is owed to the server
        }
    }
}
