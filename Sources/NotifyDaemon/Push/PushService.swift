import DBus
import NotifyCore

/// The UnifiedPush distributor's methods (`Distributor2`, `Distributor1`)
/// and notifyd's own control of it (`org.notifyd.Notifyd1.Push`).
///
/// A registration is stored before `Register` answers. It answers
/// `REGISTRATION_SUCCEEDED` once the push server gave an endpoint (at
/// once for a registration that has one; else it waits up to 10 seconds
/// for a connected server), `REGISTRATION_FAILED` with `ACTION_REQUIRED`
/// when no server is set and `NETWORK` when the server cannot be reached;
/// a failed registration is kept and completed with `NewEndpoint` later.
final class PushService {
    private let committer: Committer
    private let callers: CallerCheck?
    private let connection: PushConnection?
    /// Fresh random bytes for a new registration's server key.
    private let randomKey: () -> [UInt8]

    /// The answers of the specification.
    enum Answer {
        static let succeeded = "REGISTRATION_SUCCEEDED"
        static let failed = "REGISTRATION_FAILED"
        static let actionRequired = "ACTION_REQUIRED"
        static let unauthorized = "UNAUTHORIZED"
        static let network = "NETWORK"
    }

    init(
        committer: Committer, callers: CallerCheck?, connection: PushConnection? = nil,
        randomKey: @escaping () -> [UInt8] = { (0..<PushServerKey.length).map { _ in UInt8.random(in: 0...255) } }
    ) {
        self.committer = committer
        self.callers = callers
        self.connection = connection
        self.randomKey = randomKey
    }

    // MARK: Distributor2 and Distributor1

    func register2(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let args = try Self.dictionary(call)
        let (service, token) = (try Self.requiredString(args, "service"), try Self.requiredString(args, "token"))
        return try register(
            call, service: service, token: token, description: Self.string(args, "description") ?? "",
            vapid: Self.string(args, "vapid"), connector: .two
        ) { success, reason in
            [.vardict(reason.isEmpty ? ["success": .string(success)] : ["success": .string(success), "reason": .string(reason)])]
        }
    }

    func register1(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let (service, token, description): (String, String, String) = (
            try call.argument(0), try call.argument(1), try call.argument(2)
        )
        return try register(call, service: service, token: token, description: description, vapid: nil, connector: .one) {
            [.string($0), .string($1)]
        }
    }

    /// Decode, authorize, decide, store, answer: a caller that may not act
    /// for the app, or an app at its limit, gets `REGISTRATION_FAILED` with
    /// the specification's reason and nothing is stored. `values` makes
    /// the reply of an answer and its reason ("" for none).
    private func register(
        _ call: DBusMethodCall, service: String, token text: String, description: String, vapid: String?,
        connector: ConnectorVersion, values: @escaping (String, String) -> [DBusValue]
    ) throws -> DBusMethodResult {
        let app = try AppID(service)
        let token = try PushToken(text)
        if let refusal = Self.refusal(of: { () throws(NotifydError) in try callers?.authorize(call, for: app) }) {
            guard refusal.code == .notPermitted else { throw refusal }
            return .reply(values(Answer.failed, Answer.unauthorized))
        }
        let key = try PushServerKey(randomKey())
        var registered: PushBook.Registered?
        let decided = Self.refusal { () throws(NotifydError) in
            registered = try committer.apply { (state) throws(NotifydError) in
                try state.registerPush(token, app: app, description: description, vapid: vapid, connector: connector, serverKey: key)
            }
        }
        if let refusal = decided {
            switch refusal.code {
            case .limitExceeded: return .reply(values(Answer.failed, Answer.actionRequired))
            case .notPermitted: return .reply(values(Answer.failed, Answer.unauthorized))
            default: throw refusal
            }
        }
        guard let registration = registered?.registration else { throw NotifydError(.storageFailed, "the registration was not kept") }
        connection?.delivery.deliverHeld(for: app)
        if registration.endpoint != nil { return committer.respond(call, values(Answer.succeeded, "")) }
        guard let connection, committer.current.push.server != nil else {
            return committer.respond(call, values(Answer.failed, Answer.actionRequired))
        }
        guard connection.canRegisterNow else { return committer.respond(call, values(Answer.failed, Answer.network)) }
        connection.registered(registration)
        let waiting = connection.waitingRegistrations.wait(call, for: token) { success in
            success ? values(Answer.succeeded, "") : values(Answer.failed, Answer.network)
        }
        return waiting ? .deferred : committer.respond(call, values(Answer.failed, Answer.network))
    }

    /// The error `body` threw, or nil.
    private static func refusal(of body: () throws(NotifydError) -> Void) -> NotifydError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    func unregister2(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let token = try Self.requiredString(Self.dictionary(call), "token")
        return try unregister(call, token: token, answer: [.vardict([:])])
    }

    func unregister1(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try unregister(call, token: call.argument(0), answer: [])
    }

    /// A token not known is ignored, as the specification says.
    private func unregister(_ call: DBusMethodCall, token text: String, answer: [DBusValue]) throws -> DBusMethodResult {
        let token = try PushToken(text)
        guard let registration = committer.current.push.registrations[token] else { return .reply(answer) }
        try callers?.authorize(call, for: registration.app)
        committer.apply { $0.unregisterPush(token) }
        return committer.respond(call, answer)
    }

    // MARK: org.notifyd.Notifyd1.Push

    func status(_ call: DBusMethodCall) throws -> DBusMethodResult {
        committer.read(call) { [committer, connection] in
            let push = committer.committed.push
            let state = push.server == nil ? .notConfigured : connection?.state ?? .notConfigured
            return .reply([
                .vardict([
                    "kind": .string(push.server?.kind.rawValue ?? "none"), "address": .string(push.server?.address ?? ""),
                    "state": .string(state.name), "reason": .string(state.reason),
                    "registrations": .uint32(UInt32(push.registrations.count)),
                    "pending-messages": .uint32(UInt32(push.heldCount)),
                ])
            ])
        }
    }

    /// `SetServer(kind, address, options)`: the user's choice of push
    /// server, for every app, so a caller that acts for one app only (a
    /// sandboxed one) may not. Stored before the answer; then every
    /// registration is asked of the new server, and its app gets
    /// `NewEndpoint`.
    func setServer(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let (kind, address): (String, String) = (try call.argument(0), try call.argument(1))
        guard let options = call.arguments.dropFirst(2).first?.vardictEntries else {
            throw NotifydError(.invalidArgs, "the options must be an a{sv}")
        }
        let settings = try Self.serverSettings(kind: kind, address: address, options: options)
        try callers?.authorizeForAllApps(call)
        guard let connection, let settings else { return apply(settings, answering: call) }
        // The password goes to the Secret Service first (on its thread);
        // the settings are stored once it says where the password is.
        connection.passwords.keep(settings) { [weak self] kept in
            guard let self else { return call.fail(NotifydError(.storageFailed, "notifyd is stopping")) }
            switch kept {
            case .success(let kept):
                if case .reply(let values) = apply(kept, answering: call) { call.reply(values) }
            case .failure(let error):
                call.fail(error)
            }
        }
        return .deferred
    }

    /// Stores the server set (a no-op when it is the same), connects to it,
    /// and answers once it is on disk. A password the Secret Service kept
    /// before for another account is removed from it.
    private func apply(_ settings: PushServerSettings?, answering call: DBusMethodCall) -> DBusMethodResult {
        let before = committer.current.push.server
        committer.apply { $0.setPushServer(settings) }
        if let before, before != settings { connection?.passwords.forget(before, replacedBy: settings) }
        connection?.connect(settings)
        return committer.respond(call, [])
    }

    /// The settings `SetServer` names, or `InvalidArgs` saying what is wrong.
    static func serverSettings(kind: String, address: String, options: [String: DBusValue]) throws(NotifydError)
        -> PushServerSettings?
    {
        let known: Set = ["password", "host", "port", "ca-file"]
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw NotifydError(.invalidArgs, "unknown option '\(unknown)'; the options are \(known.sorted().joined(separator: ", "))")
        }
        if kind == "none" {
            guard address.isEmpty, options.isEmpty else {
                throw NotifydError(.invalidArgs, "'none' takes no address and no options")
            }
            return nil
        }
        guard let serverKind = PushServerSettings.Kind(rawValue: kind) else {
            throw NotifydError(.invalidArgs, "unknown push server kind '\(kind)'; it is xmpp, ntfy or none")
        }

        var port: UInt16?
        switch options["port"] {
        case .uint16(let value)?: port = value
        case nil: port = nil
        case let other?: throw NotifydError(.invalidArgs, "'port' must be a q (uint16), not '\(other.signature)'")
        }
        let settings = try PushServerSettings(
            kind: serverKind, address: address, host: try string(options, "host"), port: port,
            caFile: try string(options, "ca-file"),
            password: try string(options, "password").map { (text) throws(NotifydError) in try PushSecret(text) })
        switch serverKind {
        case .xmpp: _ = try XMPPServerLink.clientSettings(settings)
        case .ntfy:
            guard options["password"] == nil, options["host"] == nil, options["port"] == nil else {
                throw NotifydError(.invalidArgs, "an ntfy server takes only 'ca-file'; its URL says where it is")
            }
            _ = try NtfyServerLink.clientSettings(settings)
        }
        return settings
    }

    func list(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers?.visibility(for: call)
        return committer.read(call) { [committer] in
            let push = committer.committed.push
            let rows: [DBusValue] = push.registrations.values
                .filter { visibility?.shows($0.app) ?? true }
                .sorted { ($0.app, $0.description, $0.token) < ($1.app, $1.description, $1.token) }
                .map { registration in
                    .structure([
                        .string(registration.app.rawValue), .string(registration.description),
                        .vardict([
                            "endpoint": .string(registration.endpoint ?? ""), "messages": .uint32(registration.messages),
                            "last-message": .int64(registration.lastMessage ?? 0),
                            "pending": .uint32(UInt32(push.held(for: registration.token).count)),
                            "connector": .uint32(UInt32(registration.connector.rawValue)),
                        ]),
                    ])
                }
            return .reply([.array(element: Self.row, rows)])
        }
    }

    func remove(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        try callers?.authorize(call, for: app)
        let removed = committer.apply { $0.removePushRegistrations(of: app) }
        return committer.respond(call, [.uint32(UInt32(removed.count))])
    }

    static var row: DBusType { .structure([.string, .string, .dictionary(key: .string, value: .variant)]) }

    // MARK: Arguments

    /// The call's `a{sv}` argument, its values out of their variants (the
    /// signature was checked before the handler ran).
    private static func dictionary(_ call: DBusMethodCall) throws(NotifydError) -> [String: DBusValue] {
        guard let fields = call.arguments.first?.vardictEntries else {
            throw NotifydError(.invalidArgs, "the argument must be an a{sv}")
        }
        return fields
    }

    /// A string entry of a dictionary argument, nil when missing;
    /// InvalidArgs when it is not a string.
    private static func string(_ args: [String: DBusValue], _ key: String) throws(NotifydError) -> String? {
        switch args[key] {
        case .string(let text)?: return text
        case nil: return nil
        case let other?: throw NotifydError(.invalidArgs, "'\(key)' must be a string, not '\(other.signature)'")
        }
    }

    /// A string entry that must be there (InvalidArgs when it is not).
    private static func requiredString(_ args: [String: DBusValue], _ key: String) throws(NotifydError) -> String {
        guard let text = try string(args, key) else { throw NotifydError(.invalidArgs, "'\(key)' is missing") }
        return text
    }
}
