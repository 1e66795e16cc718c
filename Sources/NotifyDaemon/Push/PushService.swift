import DBus
import NotifyCore

/// The UnifiedPush distributor's methods (`Distributor2`, `Distributor1`)
/// and notifyd's own control of it (`org.notifyd.Notifyd1.Push`).
///
/// No push server can be set yet: a registration is stored and answered
/// `REGISTRATION_FAILED` with `ACTION_REQUIRED`, which the specification
/// gives for "the user must set the distributor up"; it is kept, and will
/// be completed with `NewEndpoint` once a server gives it an endpoint.
final class PushService {
    private let committer: Committer
    private let callers: CallerCheck?

    /// The answers of the specification.
    enum Answer {
        static let succeeded = "REGISTRATION_SUCCEEDED"
        static let failed = "REGISTRATION_FAILED"
        static let actionRequired = "ACTION_REQUIRED"
        static let unauthorized = "UNAUTHORIZED"
    }

    init(committer: Committer, callers: CallerCheck?) {
        self.committer = committer
        self.callers = callers
    }

    // MARK: Distributor2 and Distributor1

    func register2(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let args = try Self.dictionary(call)
        let (service, token) = (try Self.requiredString(args, "service"), try Self.requiredString(args, "token"))
        let outcome = try register(
            call, service: service, token: token, description: Self.string(args, "description") ?? "",
            vapid: Self.string(args, "vapid"), connector: .two)
        return answer(call, outcome, [.vardict(["success": .string(outcome.success), "reason": .string(outcome.reason)])])
    }

    func register1(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let (service, token, description): (String, String, String) = (
            try call.argument(0), try call.argument(1), try call.argument(2)
        )
        let outcome = try register(call, service: service, token: token, description: description, vapid: nil, connector: .one)
        return answer(call, outcome, [.string(outcome.success), .string(outcome.reason)])
    }

    /// What `Register` answers, and whether it waits for its commit.
    struct RegisterOutcome {
        let success: String
        let reason: String
        let stored: Bool
    }

    /// Decode, authorize, decide, store: a caller that may not act for the
    /// app, or an app at its limit, gets `REGISTRATION_FAILED` with the
    /// specification's reason and nothing is stored.
    private func register(
        _ call: DBusMethodCall, service: String, token text: String, description: String, vapid: String?,
        connector: ConnectorVersion
    ) throws -> RegisterOutcome {
        let app = try AppID(service)
        let token = try PushToken(text)
        if let refusal = Self.refusal(of: { () throws(NotifydError) in try callers?.authorize(call, for: app) }) {
            guard refusal.code == .notPermitted else { throw refusal }
            return RegisterOutcome(success: Answer.failed, reason: Answer.unauthorized, stored: false)
        }
        let decided = Self.refusal { () throws(NotifydError) in
            try committer.apply { (state) throws(NotifydError) in
                try state.registerPush(token, app: app, description: description, vapid: vapid, connector: connector)
            }
        }
        if let refusal = decided {
            switch refusal.code {
            case .limitExceeded: return RegisterOutcome(success: Answer.failed, reason: Answer.actionRequired, stored: false)
            case .notPermitted: return RegisterOutcome(success: Answer.failed, reason: Answer.unauthorized, stored: false)
            default: throw refusal
            }
        }
        return RegisterOutcome(success: Answer.failed, reason: Answer.actionRequired, stored: true)
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

    /// A stored registration is answered once it is on disk.
    private func answer(_ call: DBusMethodCall, _ outcome: RegisterOutcome, _ values: [DBusValue]) -> DBusMethodResult {
        outcome.stored ? committer.respond(call, values) : .reply(values)
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
        committer.read(call) { [committer] in
            let push = committer.committed.push
            return .reply([
                .vardict([
                    "kind": .string("none"), "address": .string(""), "state": .string("not-configured"),
                    "reason": .string("No push server is set, so apps' registrations wait for one."),
                    "registrations": .uint32(UInt32(push.registrations.count)),
                    "pending-messages": .uint32(UInt32(push.heldCount)),
                ])
            ])
        }
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
