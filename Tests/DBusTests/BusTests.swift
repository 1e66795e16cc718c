import DBus
import Foundation
import Testing
import NotifyTesting

/// The DBus module on a private bus: an exported object served from an
/// event loop thread, called by a second connection.
@Suite(.serialized) final class BusTests {
    let bus: TestBus
    let server: LoopThread
    let client: DBusConnection
    static let name = "org.example.Test"
    static let path = "/org/example/Test"

    struct PlainError: Error {}

    init() throws {
        let bus = try TestBus()
        let server = try LoopThread()
        let address = bus.address
        try server.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: server.loop)
            try connection.export(Self.testObject(connection: connection, loop: server.loop))
            _ = try connection.requestName(Self.name)
            ServerState.shared.connection = connection
        }
        self.bus = bus
        self.server = server
        client = try DBusConnection.connect(to: .address(address))
    }

    deinit {
        try? server.sync { ServerState.shared.connection = nil }
        server.stop()
    }

    static func testObject(connection: DBusConnection, loop: EventLoop) -> DBusObject {
        let interface = DBusInterface(
            "org.example.Test",
            methods: [
                DBusMethod("Echo", inputs: [DBusArgument("value", .variant)], outputs: [DBusArgument("value", .variant)]) { call in
                    .reply(call.arguments)
                },
                DBusMethod("Add", inputs: [DBusArgument("a", .int32), DBusArgument("b", .int32)], outputs: [DBusArgument("sum", .int32)]) { call in
                    let a: Int32 = try call.argument(0)
                    let b: Int32 = try call.argument(1)
                    return .reply([.int32(a &+ b)])
                },
                DBusMethod("Later", inputs: [DBusArgument("ms", .uint32)], outputs: [DBusArgument("text", .string)]) { call in
                    let ms: UInt32 = try call.argument(0)
                    loop.scheduleTimer(afterNanoseconds: UInt64(ms) * 1_000_000) { call.reply([.string("later")]) }
                    return .deferred
                },
                DBusMethod("Fail") { _ in throw DBusError("org.example.Error.Custom", "custom message") },
                DBusMethod("FailPlain") { _ in throw PlainError() },
                DBusMethod("Emit", inputs: [DBusArgument("text", .string)]) { call in
                    try call.connection.emitSignal(path: path, interface: "org.example.Test", member: "Said", [call.arguments[0]])
                    return .reply([])
                },
            ],
            signals: [DBusSignal("Said", arguments: [DBusArgument("text", .string)])],
            properties: [DBusProperty("Version", .string) { .string("1.0") }])
        return DBusObject(path: path, interfaces: [interface])
    }

    func call(_ member: String, _ arguments: [DBusValue] = [], interface: String = "org.example.Test") throws -> [DBusValue] {
        try client.call(destination: Self.name, path: Self.path, interface: interface, member: member, arguments)
    }

    @Test func echoesEveryTypeThroughTheBus() throws {
        for value in MessageCodecSamples.all {
            #expect(try call("Echo", [.variant(value)]) == [.variant(value)])
        }
    }

    @Test func typedArguments() throws {
        #expect(try call("Add", [.int32(2), .int32(40)]) == [.int32(42)])
    }

    @Test func wrongSignatureIsInvalidArgs() throws {
        let error = #expect(throws: DBusError.self) { try self.call("Add", [.string("2")]) }
        #expect(error?.name == DBusError.Name.invalidArgs)
        #expect(error?.message.contains("'ii'") == true)
    }

    @Test func unknownMemberAndInterfaceAreUnknownMethod() throws {
        let member = #expect(throws: DBusError.self) { try self.call("Nope") }
        #expect(member?.name == DBusError.Name.unknownMethod)
        let interface = #expect(throws: DBusError.self) { try self.call("Echo", [.variant(.byte(1))], interface: "org.example.Other") }
        #expect(interface?.name == DBusError.Name.unknownMethod)
    }

    @Test func handlerErrorsKeepTheirNameOrBecomeFailed() throws {
        let custom = #expect(throws: DBusError.self) { try self.call("Fail") }
        #expect(custom == DBusError("org.example.Error.Custom", "custom message"))
        let plain = #expect(throws: DBusError.self) { try self.call("FailPlain") }
        #expect(plain?.name == DBusError.Name.failed)
    }

    @Test func deferredReply() throws {
        #expect(try call("Later", [.uint32(20)]) == [.string("later")])
    }

    @Test func peerPing() throws {
        #expect(try call("Ping", interface: StandardInterfaces.peerName).isEmpty)
    }

    @Test func propertiesGetAndGetAll() throws {
        let get = try call("Get", [.string("org.example.Test"), .string("Version")], interface: StandardInterfaces.propertiesName)
        #expect(get == [.variant(.string("1.0"))])
        let all = try call("GetAll", [.string("org.example.Test")], interface: StandardInterfaces.propertiesName)
        #expect(all == [.vardict(["Version": .string("1.0")])])
        let unknown = #expect(throws: DBusError.self) {
            try self.call("Get", [.string("org.example.Test"), .string("Nope")], interface: StandardInterfaces.propertiesName)
        }
        #expect(unknown?.name == DBusError.Name.unknownProperty)
        let readOnly = #expect(throws: DBusError.self) {
            try self.call("Set", [.string("org.example.Test"), .string("Version"), .variant(.string("2"))], interface: StandardInterfaces.propertiesName)
        }
        #expect(readOnly?.name == DBusError.Name.propertyReadOnly)
    }

    @Test func introspectionListsDeclarationsAndChildren() throws {
        let xml: String = try call("Introspect", interface: StandardInterfaces.introspectableName).decode(0)
        #expect(xml.contains("<interface name=\"org.example.Test\">"))
        #expect(xml.contains("<arg name=\"sum\" type=\"i\" direction=\"out\"/>"))
        #expect(xml.contains("<signal name=\"Said\">"))
        let parent: String = try client.call(
            destination: Self.name, path: "/org/example", interface: StandardInterfaces.introspectableName, member: "Introspect"
        ).decode(0)
        #expect(parent.contains("<node name=\"Test\"/>"))
    }

    @Test func signalsReachSubscribers() throws {
        let listener = try LoopThread()
        let received = Received()
        let address = bus.address
        try listener.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: listener.loop)
            try connection.subscribe(DBusMatchRule(interface: "org.example.Test", member: "Said")) { message in
                received.append((try? message.arguments()) ?? [])
            }
            ListenerState.connection = connection
        }
        _ = try call("Emit", [.string("hello")])
        #expect(received.wait(count: 1) == [[.string("hello")]])
        try listener.sync { ListenerState.connection = nil }
    }

    @Test func signalsToOneDestinationReachOnlyIt() throws {
        let target = try LoopThread()
        let bystander = try LoopThread()
        let targetGot = Received()
        let bystanderGot = Received()
        let address = bus.address
        func listen(_ thread: LoopThread, _ received: Received) throws -> String {
            try thread.sync {
                let connection = try DBusConnection.connect(to: .address(address))
                try connection.attach(to: thread.loop)
                try connection.subscribe(DBusMatchRule(interface: "org.example.Test", member: "Direct")) { message in
                    received.append((try? message.arguments()) ?? [])
                }
                ListenerState.keep[connection.uniqueName ?? ""] = connection
                return connection.uniqueName ?? ""
            }
        }
        let targetName = try listen(target, targetGot)
        let bystanderName = try listen(bystander, bystanderGot)
        try server.sync {
            try ServerState.shared.connection!.emitSignal(
                path: Self.path, interface: "org.example.Test", member: "Direct", [.string("only you")],
                destination: targetName)
            try ServerState.shared.connection!.emitSignal(
                path: Self.path, interface: "org.example.Test", member: "Direct", [.string("everyone")])
        }
        #expect(targetGot.wait(count: 2) == [[.string("only you")], [.string("everyone")]])
        #expect(bystanderGot.wait(count: 1) == [[.string("everyone")]])
        // Each connection is released on its own loop's thread.
        try target.sync { ListenerState.keep[targetName] = nil }
        try bystander.sync { ListenerState.keep[bystanderName] = nil }
    }

    @Test func asyncCallCompletesOnTheLoop() throws {
        let received = Received()
        try server.sync {
            let connection = ServerState.shared.connection!
            let message = try DBusMessage.methodCall(destination: Self.name, path: Self.path, interface: "org.example.Test", member: "Add", arguments: [.int32(1), .int32(2)])
            try connection.callAsync(message) { result in
                received.append((try? result.get().arguments()) ?? [])
            }
        }
        #expect(received.wait(count: 1) == [[.int32(3)]])
    }

    @Test func asyncCallTimesOut() throws {
        let received = Received()
        try server.sync {
            let connection = ServerState.shared.connection!
            let message = try DBusMessage.methodCall(destination: Self.name, path: Self.path, interface: "org.example.Test", member: "Later", arguments: [.uint32(2000)])
            try connection.callAsync(message, timeoutMilliseconds: 50) { result in
                if case .failure(let error) = result { received.append([.string(error.name)]) }
            }
        }
        #expect(received.wait(count: 1) == [[.string(DBusError.Name.noReply)]])
    }

    @Test func nameOwnerIsFollowed() throws {
        let owners = Received()
        try server.sync {
            let connection = ServerState.shared.connection!
            try connection.watchNameOwner("org.example.Other") { owner in owners.append([.string(owner ?? "")]) }
        }
        let other = try DBusConnection.connect(to: .address(bus.address))
        _ = try other.requestName("org.example.Other")
        let unique = other.uniqueName ?? "?"
        other.close()
        #expect(owners.wait(count: 3) == [[.string("")], [.string(unique)], [.string("")]])
    }

    @Test func requestingATakenNameSaysExists() throws {
        #expect(try client.requestName(Self.name) == .exists)
        #expect(try client.nameOwner(of: Self.name) != nil)
        #expect(try client.unixProcessID(of: Self.name) == UInt32(getpid()))
    }

    /// Regression: a connection closed and released right after sending,
    /// while a dispatch for it was scheduled, crashed the loop (an unowned
    /// reference to its loop binding outlived it).
    @Test func closingAnAttachedConnectionInsideACallbackIsSafe() throws {
        let address = bus.address
        for _ in 0..<20 {
            try server.sync {
                let extra = try DBusConnection.connect(to: .address(address))
                try extra.attach(to: self.server.loop)
                try extra.emitSignal(path: "/t", interface: "org.example.Test", member: "Said", [.string("bye")])
                extra.close()
            }
        }
        #expect(try call("Add", [.int32(1), .int32(1)]) == [.int32(2)])
    }

    @Test func disconnectIsNoticed() throws {
        let events = Received()
        try server.sync {
            ServerState.shared.connection!.onDisconnect { events.append([.string("gone")]) }
        }
        bus.stop()
        #expect(events.wait(count: 1) == [[.string("gone")]])
    }
}

/// Values collected on one thread and awaited on another.
final class Received: @unchecked Sendable {
    private let lock = NSCondition()
    private var items: [[DBusValue]] = []

    func append(_ item: [DBusValue]) {
        lock.lock()
        items.append(item)
        lock.broadcast()
        lock.unlock()
    }

    func wait(count: Int, seconds: Double = 5) -> [[DBusValue]] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        lock.lock()
        defer { lock.unlock() }
        while items.count < count && lock.wait(until: deadline) {}
        return items
    }
}

final class ServerState: @unchecked Sendable {
    static let shared = ServerState()
    var connection: DBusConnection?
}

enum ListenerState {
    nonisolated(unsafe) static var connection: DBusConnection?
    nonisolated(unsafe) static var keep: [String: DBusConnection] = [:]
}

enum MessageCodecSamples {
    static var all: [DBusValue] { MessageCodecTests.samples.filter { if case .unixFD = $0 { false } else { true } } }
}

/// Regression (found by notifyd-fuzz): libdbus answered Peer calls with any
/// arguments; a wrong signature must be InvalidArgs, on every path.
@Suite struct PeerTests {
    @Test func peerCallsAreCheckedOnEveryPath() throws {
        let bus = try TestBus()
        let server = try LoopThread()
        let address = bus.address
        try server.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: server.loop)
            try connection.export(DBusObject(path: "/org/example/Peer", interfaces: []))
            _ = try connection.requestName("org.example.Peer")
            PeerState.connection = connection
        }
        let client = try DBusConnection.connect(to: .address(address))
        for path in ["/org/example/Peer", "/", "/nowhere"] {
            #expect(try client.call(destination: "org.example.Peer", path: path, interface: StandardInterfaces.peerName, member: "Ping").isEmpty)
            let id: String = try client.call(
                destination: "org.example.Peer", path: path, interface: StandardInterfaces.peerName, member: "GetMachineId"
            ).decode(0)
            #expect(id.count == 32)
            let error = #expect(throws: DBusError.self) {
                try client.call(destination: "org.example.Peer", path: path, interface: StandardInterfaces.peerName, member: "Ping", [.string("hostile")])
            }
            #expect(error?.name == DBusError.Name.invalidArgs)
        }
        try server.sync { PeerState.connection = nil }
        server.stop()
    }
}

enum PeerState {
    nonisolated(unsafe) static var connection: DBusConnection?
}
