import DBus
import Glibc
import Logging
import NotifyCore

/// Tells who a bus connection is, and whether it may act for an app.
///
/// Identities come from a ``ConnectionIdentifier`` on a thread of its own,
/// which starts on every new connection as soon as its unique name
/// appears. A message from a connection not identified yet waits (in
/// order, bounded) until the answer arrives: nothing on the daemon's loop
/// waits for the bus. Identities are kept per unique name (never reused on
/// a bus) and forgotten when the name leaves; a failure for want of
/// resources is never kept.
final class CallerCheck {
    private let logger: Logger
    private let daemonUserID = getuid()
    private var identities: [String: CallerIdentity] = [:]
    private var waiting: [String: [(CallerLookup) -> Void]] = [:]
    private var waitingCount = 0
    /// The answer being handed to the messages that waited for it, so that
    /// their handlers see it even when it is not kept.
    private var handing: (name: String, lookup: CallerLookup)?
    private var recentlyLeft = RecentNames(capacity: 1024)
    private var sandboxes = SandboxActivity()
    private var afterWaiting: [String: [() -> Void]] = [:]
    private var identifier: ConnectionIdentifier?
    /// Where the time of sandboxed activity is read (elapsed time).
    private let clock: any DaemonClock

    static let cacheLimit = 8192
    /// Messages that may wait for their sender's identity, in all.
    static let waitingLimit = 65_536

    /// Starts identifying the connections of `bus`; answers arrive on
    /// `loop`, whose thread this must be called on.
    init(bus: DBusConnection.Bus, loop: EventLoop, clock: any DaemonClock, logger: Logger) throws(DBusError) {
        self.logger = logger
        self.clock = clock
        let inbox = LoopBound(WeakCallerCheck(), loop: loop)
        identifier = try ConnectionIdentifier(bus: bus, logger: logger) { name, lookup in
            inbox.execute { $0.check?.deliver(name, lookup) }
        }
        inbox.value.check = self
    }

    /// Stops identifying (shutdown); waiting messages are dropped.
    func stop() {
        identifier?.stop()
        identifier = nil
    }

    deinit { identifier?.stop() }

    // MARK: Admission

    /// Runs `body` with what is known of `sender`: at once when it is
    /// known, else once the identifier answers (in the order asked).
    /// Returns false, running nothing, when too many messages wait already.
    @discardableResult
    func whenIdentified(_ sender: String, _ body: @escaping (CallerLookup) -> Void) -> Bool {
        if let identity = identities[sender] {
            noteSandbox(identity)
            body(.identified(identity))
            return true
        }
        guard waitingCount < Self.waitingLimit else { return false }
        waitingCount += 1
        if waiting[sender] == nil {
            waiting[sender] = [body]
            identifier?.request(sender)
        } else {
            waiting[sender]?.append(body)
        }
        return true
    }

    /// The identifier's answer for `name` (on the daemon's loop).
    func deliver(_ name: String, _ lookup: CallerLookup) {
        if case .identified(let identity) = lookup {
            noteSandbox(identity)
            if !recentlyLeft.contains(name) {
                if identities.count >= Self.cacheLimit { identities.removeAll(keepingCapacity: true) }
                identities[name] = identity
            }
        }
        if case .unavailable(let why) = lookup {
            logger.warning("could not identify the bus connection \(name): \(why)")
        }
        guard let bodies = waiting.removeValue(forKey: name) else { return }
        waitingCount -= bodies.count
        // A known identity is never replaced by a later "departed" from a
        // second lookup of the same name.
        let answer = identities[name].map(CallerLookup.identified) ?? lookup
        handing = (name, answer)
        for body in bodies { body(answer) }
        handing = nil
        for cleanUp in afterWaiting.removeValue(forKey: name) ?? [] { cleanUp() }
    }

    /// A name left the bus: forget its identity, and run `cleanUp` (what
    /// its leaving ends) once the messages it sent before leaving have run:
    /// now, or after they waited for its identity (the bus keeps order, so
    /// they have all been received).
    ///
    /// The name is remembered as gone (the newest 1024), so that an answer
    /// the identifier sends after it left is not kept: every connection is
    /// identified when it appears, and one that left before its answer came
    /// back (notifyd's own LauncherEntry connections, a `busctl` that never
    /// called notifyd) would otherwise stay cached until ``cacheLimit``.
    func forget(_ name: String, then cleanUp: @escaping () -> Void) {
        identities[name] = nil
        recentlyLeft.insert(name)
        guard waiting[name] != nil else {
            cleanUp()
            return
        }
        afterWaiting[name, default: []].append(cleanUp)
    }

    /// Identities kept (tests: the cache stays bounded).
    var cachedCount: Int { identities.count }

    /// Whether `sender` is identified already (its messages run at once).
    func isKnown(_ sender: String) -> Bool { identities[sender] != nil }

    // MARK: Decisions

    /// Throws unless the method's caller may act for `app`.
    func authorize(_ call: DBusMethodCall, for app: AppID) throws(NotifydError) {
        try CallerPolicy.check(try identity(of: call.sender, actingFor: app), actingFor: app, daemonUserID: daemonUserID)
    }

    /// Throws `NotPermitted` unless the caller may act for every app
    /// (ClearAllBadges): the core's rule.
    func authorizeForAllApps(_ call: DBusMethodCall) throws(NotifydError) {
        try CallerPolicy.checkForAllApps(try identity(of: call.sender, actingFor: nil), daemonUserID: daemonUserID)
    }

    /// Whether the method's caller runs in a sandbox (as far as notifyd can
    /// tell): a transfer of a sandboxed caller names files of its app's
    /// own directory only.
    func sandbox(of call: DBusMethodCall, actingFor app: AppID) throws(NotifydError) -> CallerSandbox {
        try identity(of: call.sender, actingFor: app).sandbox
    }

    /// Which apps the caller's listings show: the core's rule.
    func visibility(for call: DBusMethodCall) throws(NotifydError) -> AppVisibility {
        CallerPolicy.visibility(of: try identity(of: call.sender, actingFor: nil), daemonUserID: daemonUserID)
    }

    /// For a worker signal: nil when its sender may act for `app`, else why not.
    func refusal(ofSignal lookup: CallerLookup, for app: AppID) -> NotifydError? {
        do {
            try CallerPolicy.check(try identity(lookup, actingFor: app), actingFor: app, daemonUserID: daemonUserID)
            return nil
        } catch {
            return error
        }
    }

    private func identity(of sender: String, actingFor app: AppID?) throws(NotifydError) -> CallerIdentity {
        if let known = identities[sender] { return known }
        if let handing, handing.name == sender { return try identity(handing.lookup, actingFor: app) }
        // Only a message admitted without waiting gets here (none does).
        return CallerIdentity(userID: UInt32.max, processID: nil, sandbox: .unknown)
    }

    /// The identity a lookup gives. A sender that left unidentified is a
    /// host process of the user unless a sandboxed app other than `app`
    /// was active lately (``SandboxActivity``; with no app, it never is);
    /// a shortage of resources is an error of its own, never `NotPermitted`.
    private func identity(_ lookup: CallerLookup, actingFor app: AppID?) throws(NotifydError) -> CallerIdentity {
        switch lookup {
        case .identified(let identity):
            return identity
        case .departed(let why):
            let now = clock.elapsed()
            if let app, sandboxes.suspicion(ofDepartedSenderActingFor: app, at: now) == nil {
                return CallerIdentity(userID: daemonUserID, processID: nil, sandbox: .host, departure: why)
            }
            let suspicion = app.flatMap { sandboxes.suspicion(ofDepartedSenderActingFor: $0, at: now) }
            let reason = suspicion.map { "\(why); \($0)" } ?? why
            return CallerIdentity(userID: daemonUserID, processID: nil, sandbox: .unknown, departure: reason)
        case .unavailable(let why):
            throw NotifydError(
                .resourcesExhausted, "notifyd could not identify the caller for want of resources (\(why)); try again")
        }
    }

    private func noteSandbox(_ identity: CallerIdentity) {
        guard case .flatpak(let app) = identity.sandbox else { return }
        sandboxes.noteSandboxed(app, at: clock.elapsed())
    }
}

/// Lets the identifier's answers reach the check without keeping it alive.
private final class WeakCallerCheck {
    weak var check: CallerCheck?
}

/// The last names seen leaving, a bounded ring.
struct RecentNames {
    private var names: [String] = []
    private var members: Set<String> = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ name: String) -> Bool { members.contains(name) }

    mutating func insert(_ name: String) {
        guard members.insert(name).inserted else { return }
        if names.count < capacity {
            names.append(name)
        } else {
            members.remove(names[next])
            names[next] = name
            next = (next + 1) % capacity
        }
    }
}
