import DBus
import NotifyCore

extension PushService {
    /// `org.unifiedpush.Distributor2` at `/org/unifiedpush/Distributor`,
    /// as the UnifiedPush D-Bus specification (DBUS_0.3.0) declares it;
    /// `service` is nil when only the declaration is wanted.
    static func distributor2Interface(_ service: PushService?) -> DBusInterface {
        let handle = MethodBinder(service)
        let args = DBusArgument("args", .dictionary(key: .string, value: .variant))
        let result = DBusArgument("res", .dictionary(key: .string, value: .variant))
        return DBusInterface(
            NotifydNames.distributor2Interface,
            documentation: """
                UnifiedPush's distributor, version 2, served by notifyd on the bus name \
                org.unifiedpush.Distributor.notifyd. Registrations are kept across restarts; an app's \
                connector (org.unifiedpush.Connector2 at /org/unifiedpush/Connector on its service name) is \
                called, and started by D-Bus when it is not running, without waiting for its answer.
                """,
            methods: [
                DBusMethod(
                    "Register", inputs: [args], outputs: [result],
                    documentation: """
                        args: service (s, the app ID, the connector's bus name), token (s, 1 to 100 bytes), \
                        description (s, at most 100 bytes), vapid (s, 87 characters of base64url). The \
                        registration is stored before the answer: success REGISTRATION_SUCCEEDED once a push \
                        server gave an endpoint (NewEndpoint follows), else REGISTRATION_FAILED with reason \
                        ACTION_REQUIRED (no push server set, or 100 registrations for the app or 1,000 in all, \
                        then nothing is stored) or UNAUTHORIZED (a sandboxed caller registering another app, \
                        or a token that is another app's). Registering again with the same token is the same \
                        registration. Registrations survive a restart: at every start of notifyd each is asked \
                        of the push server again, and before its endpoint expires (an hour before, or half its \
                        life when the server grants less than two hours); the connector gets NewEndpoint when \
                        the endpoint changed. Arguments that are not what the specification says: InvalidArgs \
                        or InvalidAppId.
                        """,
                    handler: handle { $0.register2 }),
                DBusMethod(
                    "Unregister", inputs: [args], outputs: [result],
                    documentation: """
                        args: token (s). Removes the registration and the messages held for it, answers an \
                        empty dictionary, then calls Unregistered on the connector. A token not known is \
                        ignored.
                        """,
                    handler: handle { $0.unregister2 }),
            ])
    }

    /// `org.unifiedpush.Distributor1`, the specification's first version,
    /// for connectors that have only that (then notifyd calls `Connector1`).
    static func distributor1Interface(_ service: PushService?) -> DBusInterface {
        let handle = MethodBinder(service)
        return DBusInterface(
            NotifydNames.distributor1Interface,
            documentation: "UnifiedPush's distributor, version 1: Distributor2 with positional strings.",
            methods: [
                DBusMethod(
                    "Register",
                    inputs: [.init("serviceName", .string), .init("token", .string), .init("description", .string)],
                    outputs: [.init("registrationResult", .string), .init("registrationResultReason", .string)],
                    documentation: "As Distributor2.Register; the reason is empty on success.",
                    handler: handle { $0.register1 }),
                DBusMethod(
                    "Unregister", inputs: [.init("token", .string)],
                    documentation: """
                        As Distributor2.Unregister (the specification marks it NoReply: notifyd answers only \
                        callers that wait).
                        """,
                    handler: handle { $0.unregister1 }),
            ])
    }

    /// `org.notifyd.Notifyd1.Push`, on notifyd's own object.
    static func interface(_ service: PushService?) -> DBusInterface {
        let handle = MethodBinder(service)
        return DBusInterface(
            NotifydNames.pushInterface,
            documentation: """
                notifyd's UnifiedPush distributor (org.unifiedpush.Distributor.notifyd): its state and its \
                registrations. Push servers are not available yet: every registration waits for one.
                """,
            methods: [
                DBusMethod(
                    "SetServer",
                    inputs: [
                        .init("kind", .string), .init("address", .string),
                        .init("options", .dictionary(key: .string, value: .variant)),
                    ],
                    documentation: """
                        kind: xmpp (address: a JID, user@example.org; option password required; host (s) and \
                        port (q) to connect to), ntfy (address: the server's URL, https://ntfy.sh; one topic per \
                        registration, all followed through one stream, caught up after a reconnection) or none \
                        (address empty, no options). ca-file (s): an absolute path to PEM CAs trusted besides \
                        the system's. TLS is required and the certificate verified, except to a loopback \
                        address. Stored before the answer (the password in the Secret Service when one \
                        answers, else in the state database, readable by the user alone); then every \
                        registration is asked of the new server and its app gets NewEndpoint. A sandboxed \
                        caller: NotPermitted. Bad arguments: InvalidArgs saying which.
                        """,
                    handler: handle { $0.setServer }),
                DBusMethod(
                    "GetStatus", outputs: [.init("status", .dictionary(key: .string, value: .variant))],
                    documentation: """
                        kind (s: xmpp, ntfy or none), address (s), state (s: not-configured, connecting, connected, \
                        disconnected, authentication-failed), reason (s, one sentence), registrations (u), \
                        pending-messages (u). Never the password.
                        """,
                    handler: handle { $0.status }),
                DBusMethod(
                    "ListRegistrations", outputs: [.init("registrations", .array(row))],
                    documentation: """
                        service (the app ID), description, and details: endpoint (s, empty until a push server \
                        gave one), messages (u, delivered), last-message (x, Unix µs, 0 before the first), \
                        pending (u, held for the app), connector (u, 1 or 2). Never the token. A sandboxed \
                        caller sees its own app's.
                        """,
                    handler: handle { $0.list }),
                DBusMethod(
                    "RemoveRegistrations", inputs: [.init("app_id", .string)], outputs: [.init("removed", .uint32)],
                    documentation: """
                        Removes every registration of the app and the messages held for them, and calls \
                        Unregistered on its connector for each: the user's way to cut an app off.
                        """,
                    handler: handle { $0.remove }),
            ])
    }
}
