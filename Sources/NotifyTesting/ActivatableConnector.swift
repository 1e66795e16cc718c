import Glibc
import Foundation
import NotifyTestingCore

/// An app's UnifiedPush connector as a separate process: python3-dbus,
/// written to the UnifiedPush D-Bus specification (`Connector2`, or
/// `Connector1`), started by D-Bus activation from a service file on the
/// test's bus, as an app that is not running is. Everything it is called
/// with goes to a file of JSON lines, read back with ``records``.
///
/// Registration is a short-lived process too (``register(token:description:)``):
/// it calls `Register` and exits, as a connector library does at start-up.
public final class ActivatableConnector: Sendable {
    /// One call the connector got, or its start.
    public struct Record: Sendable, Equatable {
        /// `started`, `Message`, `NewEndpoint` or `Unregistered`.
        public let member: String
        public let token: String
        public let endpoint: String
        public let message: [UInt8]
        public let id: String
        public let pid: Int32
        /// What the message decrypted to, with the subscription's keys
        /// (``WebPushSender``); empty without them.
        public let plaintext: [UInt8]
    }

    public let app: String
    public let version: Int
    private let bus: TestBus
    private let recordPath: String

    /// Installs the connector of `app` on `bus` (not started: D-Bus starts
    /// it on the first call). `refuseMessages`: its `Message` fails, as an
    /// app that crashes while handling one does (each is recorded as
    /// `refused`). With `webPush`, it
    /// decrypts each message with the subscription's keys (`http_ece`), in
    /// the Python environment that has them.
    public init(
        bus: TestBus, app: String, version: Int = 2, refuseMessages: Bool = false,
        webPush: WebPushSender.Subscription? = nil
    ) throws {
        self.bus = bus
        self.app = app
        self.version = version
        let directory = bus.directory.appendingPathComponent("connector-\(app)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        recordPath = directory.appendingPathComponent("records.jsonl").path
        let script = directory.appendingPathComponent("connector.py").path
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        if refuseMessages { try Data().write(to: URL(fileURLWithPath: recordPath + ".refusing")) }
        try bus.installService(
            name: app, executable: webPush == nil ? "/usr/bin/python3" : try WebPushSender.python(),
            arguments: [script, recordPath, app, String(version), refuseMessages ? "refuse" : "take", webPush?.keysPath ?? "none"])
    }

    /// A connector made with `refuseMessages` takes messages from now on,
    /// running or not: as an app whose bug was fixed, with no restart.
    public func takeMessagesFromNowOn() throws {
        guard unlink(recordPath + ".refusing") == 0 || errno == ENOENT else {
            throw TestFailure("cannot remove \(recordPath).refusing: errno \(errno)")
        }
    }

    /// What the connector got so far, in order.
    public var records: [Record] {
        guard let text = try? String(contentsOfFile: recordPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Record(
                member: object["member"] as? String ?? "", token: object["token"] as? String ?? "",
                endpoint: object["endpoint"] as? String ?? "", message: Self.bytes(hex: object["message"] as? String),
                id: object["id"] as? String ?? "", pid: Int32(object["pid"] as? Int ?? 0),
                plaintext: Self.bytes(hex: object["plaintext"] as? String))
        }
    }

    private static func bytes(hex: String?) -> [UInt8] {
        guard let hex else { return [] }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
        return bytes
    }

    /// The first record after the first `skipping` that `match` accepts,
    /// waited for (bounded).
    @discardableResult
    public func waitFor(
        _ what: String, after skipping: Int = 0, seconds: Double = 30, _ match: (Record) -> Bool
    ) throws -> Record {
        var found: Record?
        try waitUntil("the connector of \(app) got \(what)", seconds: seconds) {
            found = records.dropFirst(skipping).first(where: match)
            return found != nil
        }
        return found!
    }

    /// Ends the running connector process, if any (SIGKILL, as an app that
    /// crashed), and waits until it is gone.
    public func kill() throws {
        for pid in Set(records.filter { $0.member == "started" }.map(\.pid)) where pid > 0 {
            _ = Glibc.kill(pid, SIGKILL)
            try waitUntil("the connector \(pid) ended", seconds: 10) { Glibc.kill(pid, 0) != 0 }
        }
    }

    /// Calls `Register` from a short-lived process; its answer as
    /// `(success, reason)`.
    public func register(token: String, description: String = "", vapid: String? = nil) throws
        -> (success: String, reason: String)
    {
        let call = version == 2
            ? """
              args = {'service': sys.argv[1], 'token': sys.argv[2], 'description': sys.argv[3]}
              if len(sys.argv) > 4: args['vapid'] = sys.argv[4]
              answer = distributor.Register(args, dbus_interface='org.unifiedpush.Distributor2', timeout=60)
              print(answer['success']); print(answer.get('reason', ''))
              """
            : """
              success, reason = distributor.Register(sys.argv[1], sys.argv[2], sys.argv[3],
                                                     dbus_interface='org.unifiedpush.Distributor1', timeout=60)
              print(success); print(reason)
              """
        let program = """
            import dbus, sys
            bus = dbus.SessionBus()
            distributor = bus.get_object('org.unifiedpush.Distributor.notifyd', '/org/unifiedpush/Distributor')
            \(call)
            """
        let result = try runProcess(
            "/usr/bin/python3", ["-c", program, app, token, description] + (vapid.map { [$0] } ?? []),
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        guard result.status == 0 else { throw TestFailure("Register of \(app) failed: \(result.stderr)") }
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (lines.first ?? "", lines.count > 1 ? lines[1] : "")
    }

    /// The connector: exports its object, then takes the app's name (so a
    /// call that started it waits for the object), and records each call.
    static let script = """
        import dbus, dbus.service, json, os, sys
        from dbus.mainloop.glib import DBusGMainLoop
        from gi.repository import GLib

        record_path, app, version, mode, keys_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
        DBusGMainLoop(set_as_default=True)

        def decrypt(body):
            # The app's side of Web Push (RFC 8291), when it has a subscription's keys.
            if keys_path == "none":
                return ''
            import base64, http_ece
            from cryptography.hazmat.primitives import serialization
            keys = json.load(open(keys_path))
            private = serialization.load_pem_private_key(keys['private_pem'].encode(), password=None)
            auth = base64.urlsafe_b64decode(keys['auth'] + '=' * (-len(keys['auth']) % 4))
            return http_ece.decrypt(body, private_key=private, auth_secret=auth, version='aes128gcm').hex()
        bus = dbus.SessionBus()

        def record(**fields):
            with open(record_path, 'a') as f:
                f.write(json.dumps(fields) + '\\n')

        class Connector2(dbus.service.Object):
            @dbus.service.method('org.unifiedpush.Connector2', in_signature='a{sv}', out_signature='a{sv}', byte_arrays=True)
            def Message(self, args):
                body = bytes(args['message'])
                if mode == 'refuse' and os.path.exists(record_path + '.refusing'):
                    record(member='refused', token=str(args['token']), message=body.hex(), id=str(args.get('id', '')))
                    raise dbus.exceptions.DBusException('the app failed', name='org.example.Error.Failed')
                record(member='Message', token=str(args['token']), message=body.hex(), id=str(args.get('id', '')),
                       plaintext=decrypt(body))
                return dbus.Dictionary({'id': args.get('id', '')}, signature='sv')

            @dbus.service.method('org.unifiedpush.Connector2', in_signature='a{sv}', out_signature='a{sv}')
            def NewEndpoint(self, args):
                record(member='NewEndpoint', token=str(args['token']), endpoint=str(args['endpoint']))
                return dbus.Dictionary({}, signature='sv')

            @dbus.service.method('org.unifiedpush.Connector2', in_signature='a{sv}', out_signature='a{sv}')
            def Unregistered(self, args):
                record(member='Unregistered', token=str(args.get('token', '')))
                return dbus.Dictionary({}, signature='sv')

        class Connector1(dbus.service.Object):
            @dbus.service.method('org.unifiedpush.Connector1', in_signature='says', out_signature='', byte_arrays=True)
            def Message(self, token, message, identifier):
                record(member='Message', token=str(token), message=bytes(message).hex(), id=str(identifier),
                       plaintext=decrypt(bytes(message)))

            @dbus.service.method('org.unifiedpush.Connector1', in_signature='ss', out_signature='')
            def NewEndpoint(self, token, endpoint):
                record(member='NewEndpoint', token=str(token), endpoint=str(endpoint))

            @dbus.service.method('org.unifiedpush.Connector1', in_signature='s', out_signature='')
            def Unregistered(self, token):
                record(member='Unregistered', token=str(token))

        connector = (Connector2 if version == 2 else Connector1)(bus, '/org/unifiedpush/Connector')
        name = dbus.service.BusName(app, bus)
        record(member='started', pid=os.getpid())
        GLib.MainLoop().run()
        """
}
