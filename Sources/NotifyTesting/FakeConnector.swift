import DBus
import Foundation

/// An app's UnifiedPush connector on a test bus: owns the app's bus name,
/// serves `org.unifiedpush.Connector2` (or `Connector1`) at
/// `/org/unifiedpush/Connector` on a loop thread of its own, and records
/// each call it gets, as a real connector (KUnifiedPush's, unifiedpush-rs)
/// would receive them.
public final class FakeConnector: @unchecked Sendable {
    /// One call the connector got: its member and its arguments.
    public struct Call: Sendable, Hashable {
        public var member: String
        public var arguments: [DBusValue]

        public init(member: String, arguments: [DBusValue]) {
            self.member = member
            self.arguments = arguments
        }
    }

    public let app: String
    private let thread: LoopThread
    private let recorded = RecordedCalls<Call>()
    private var connection: DBusConnection?

    /// Connects to the bus at `address`, takes `app` as its name and serves
    /// Connector2 (`version` 2) or Connector1 (1).
    public init(address: String, app: String, version: Int = 2) throws {
        self.app = app
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            try connection.export(
                DBusObject(path: "/org/unifiedpush/Connector", interfaces: [version == 1 ? self.connector1() : self.connector2()]))
            guard try connection.requestName(app) == .primaryOwner else {
                throw TestFailure("\(app) is already taken on \(address)")
            }
            self.connection = connection
        }
    }

    deinit {
        try? thread.sync { self.connection = nil }
        thread.stop()
    }

    /// The calls so far, in order.
    public var calls: [Call] { recorded.all }

    /// Waits until `count` calls came (at most `seconds`), then returns them all.
    @discardableResult
    public func waitForCalls(count: Int, seconds: Double = 20) throws -> [Call] {
        try recorded.wait(count: count, seconds: seconds, peer: "\(app)'s connector")
    }

    private func record(_ call: DBusMethodCall) {
        recorded.append(Call(member: call.message.member ?? "", arguments: call.arguments))
    }

    private func connector2() -> DBusInterface {
        let dictionary = DBusType.dictionary(key: .string, value: .variant)
        let method = { (name: String) in
            DBusMethod(name, inputs: [.init("args", dictionary)], outputs: [.init("res", dictionary)]) { [weak self] call in
                self?.record(call)
                return .reply([.vardict([:])])
            }
        }
        return DBusInterface(
            "org.unifiedpush.Connector2", methods: [method("Message"), method("NewEndpoint"), method("Unregistered")])
    }

    private func connector1() -> DBusInterface {
        let record = { [weak self] (call: DBusMethodCall) -> DBusMethodResult in
            self?.record(call)
            return .reply([])
        }
        return DBusInterface(
            "org.unifiedpush.Connector1",
            methods: [
                DBusMethod(
                    "Message", inputs: [.init("token", .string), .init("message", .array(.byte)), .init("messageIdentifier", .string)],
                    handler: record),
                DBusMethod("NewEndpoint", inputs: [.init("token", .string), .init("endpoint", .string)], handler: record),
                DBusMethod("Unregistered", inputs: [.init("token", .string)], handler: record),
            ])
    }
}
