import DBus
import Logging
import NotifyCore

/// Calls apps' UnifiedPush connectors: `org.unifiedpush.Connector2` (or
/// `Connector1` for an app that registered through `Distributor1`) at
/// `/org/unifiedpush/Connector` on the bus name the app registered as its
/// `service`, D-Bus starting the app when it is not running.
///
/// The specification says a distributor must not wait for a connector's
/// answer: every call is asynchronous, its answer (or error: the app could
/// not be started, it has no connector) only logged.
final class ConnectorCaller {
    private weak var connection: DBusConnection?
    private let logger: Logger
    /// How long a connector (and its activation) may take before the call
    /// counts as unanswered.
    static let timeoutMilliseconds: Int32 = 30_000

    init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// `Unregistered`: the app asked for it (`confirmation`), or the user
    /// removed the registration. Connector1's form says a confirmation with
    /// an empty token; Connector2's always names the token.
    func unregistered(_ registration: PushRegistration, confirmation: Bool) {
        let token = registration.token.rawValue
        switch registration.connector {
        case .two:
            call(registration.app, NotifydNames.connector2Interface, "Unregistered", [.vardict(["token": .string(token)])])
        case .one:
            call(registration.app, NotifydNames.connector1Interface, "Unregistered", [.string(confirmation ? "" : token)])
        }
    }

    /// `NewEndpoint`: the registration's endpoint, after a registration
    /// and whenever it changes.
    func newEndpoint(_ registration: PushRegistration) {
        guard let endpoint = registration.endpoint else { return }
        let token = registration.token.rawValue
        switch registration.connector {
        case .two:
            call(
                registration.app, NotifydNames.connector2Interface, "NewEndpoint",
                [.vardict(["token": .string(token), "endpoint": .string(endpoint)])])
        case .one:
            call(registration.app, NotifydNames.connector1Interface, "NewEndpoint", [.string(token), .string(endpoint)])
        }
    }

    /// `Message`: the bytes exactly as the application server sent them,
    /// with the push server's ID. `answered` gets nil when the connector
    /// took it (Connector2's answer; Connector1's `Message` has no answer,
    /// `NoReply`, so it counts as taken once the bus has it), else why not
    /// in words, for the caller to log (once for a run of failures).
    func message(_ message: PushMessage, to registration: PushRegistration, answered: @escaping (String?) -> Void) {
        let token = registration.token.rawValue
        switch registration.connector {
        case .two:
            var fields: [String: DBusValue] = ["token": .string(token), "message": .array(element: .byte, message.body.map { .byte($0) })]
            if !message.serverID.isEmpty { fields["id"] = .string(message.serverID) }
            call(registration.app, NotifydNames.connector2Interface, "Message", [.vardict(fields)], answered: answered)
        case .one:
            call(
                registration.app, NotifydNames.connector1Interface, "Message",
                [.string(token), .array(element: .byte, message.body.map { .byte($0) }), .string(message.serverID)],
                noReply: true, answered: answered)
        }
    }

    private func call(
        _ app: AppID, _ interface: String, _ member: String, _ arguments: [DBusValue], noReply: Bool = false,
        answered: ((String?) -> Void)? = nil
    ) {
        guard let connection else {
            answered?("notifyd is not connected to the bus")
            return
        }
        do {
            let message = try DBusMessage.methodCall(
                destination: app.rawValue, path: NotifydNames.connectorPath, interface: interface, member: member,
                arguments: arguments)
            if noReply {
                message.setNoReply(true)
                _ = try connection.send(message)
                answered?(nil)
                return
            }
            try connection.callAsync(message, timeoutMilliseconds: Self.timeoutMilliseconds) { [logger] result in
                switch result {
                case .success:
                    answered?(nil)
                case .failure(let error) where answered != nil:
                    answered?("\(error.name): \(error.message)")
                case .failure(let error):
                    logger.notice("the UnifiedPush connector of \(app) did not take \(member): \(error.name): \(error.message)")
                }
            }
        } catch {
            logger.warning("cannot call \(member) on the UnifiedPush connector of \(app): \(error)")
            answered?("\(error)")
        }
    }
}
