import DBus
import Foundation
import NotifyTesting

/// notifyd's `org.notifyd.Notifyd1.Transfers` played by a test on a
/// ``TestBus``: it owns `org.notifyd.Notifyd1`, records every call,
/// answers from the transfers the test sets, and emits `TransferChanged`
/// when told. It can leave the bus and come back (a restart of notifyd)
/// with a new unique name, its transfers kept.
final class FakeTransfers: @unchecked Sendable {
    struct Call: Sendable {
        var member: String
        var arguments: [DBusValue]
    }

    /// One transfer: app, session and details.
    struct Entry: Sendable {
        var app: String
        var session: String
        var details: [String: DBusValue]
    }

    static let interface = "org.notifyd.Notifyd1.Transfers"
    static let unknownTransfer = "org.notifyd.Notifyd1.Error.UnknownTransfer"

    let address: String
    private let thread: LoopThread
    private let lock = NSCondition()
    private var recorded: [Call] = []
    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64
    /// Touched on the loop's thread only.
    private var connection: DBusConnection?

    /// Takes notifyd's name on the bus at `address`; new transfers get
    /// IDs from `firstID` on.
    init(address: String, firstID: UInt64 = 7) throws {
        self.address = address
        nextID = firstID
        thread = try LoopThread(name: "fake-transfers")
        try start()
    }

    deinit {
        try? thread.sync { self.connection = nil }
        thread.stop()
    }

    /// Every call so far.
    var calls: [Call] { locked { recorded } }

    /// Waits (bounded) for the first call of `member`.
    func waitForCall(_ member: String, seconds: Double = 10) throws -> Call {
        try waitUntil("a call of \(member)", seconds: seconds) { calls.contains { $0.member == member } }
        guard let call = calls.first(where: { $0.member == member }) else { throw TestFailure("no \(member)") }
        return call
    }

    /// Sets a transfer (emitting nothing).
    func set(_ id: UInt64, _ entry: Entry) {
        locked { entries[id] = entry }
    }

    /// Changes a transfer's details (state included) and, unless `emit`
    /// is false, emits `TransferChanged` for it.
    func change(_ id: UInt64, _ details: [String: DBusValue], emit: Bool = true) throws {
        let entry: Entry? = locked {
            entries[id]?.details.merge(details) { $1 }
            return entries[id]
        }
        guard emit, let entry else { return }
        let state = entry.details["state"] ?? .string("queued")
        try thread.sync {
            try self.connection?.emitSignal(
                path: "/org/notifyd/Notifyd1", interface: Self.interface, member: "TransferChanged",
                [.uint64(id), .string(entry.app), .string(entry.session), state, .vardict(entry.details)])
            self.connection?.flush()
        }
    }

    /// Leaves the bus, as a stopped notifyd does.
    func leave() throws {
        try thread.sync {
            self.connection?.close()
            self.connection = nil
        }
    }

    /// Comes back on a new connection, as a restarted notifyd does.
    func start() throws {
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(self.address), private: true)
            try connection.attach(to: self.thread.loop)
            try connection.export(DBusObject(path: "/org/notifyd/Notifyd1", interfaces: [self.declaration()]))
            guard try connection.requestName("org.notifyd.Notifyd1") == .primaryOwner else {
                throw TestFailure("org.notifyd.Notifyd1 is already taken")
            }
            self.connection = connection
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func record(_ call: DBusMethodCall) {
        let member = call.message.member ?? ""
        locked { recorded.append(Call(member: member, arguments: call.arguments)) }
    }

    private func declaration() -> DBusInterface {
        let id = DBusArgument("transfer_id", .uint64)
        let vardict = DBusType.dictionary(key: .string, value: .variant)
        let add: (DBusMethodCall) throws -> DBusMethodResult = { [unowned self] call in
            record(call)
            guard case .string(let app) = call.arguments[0], case .string(let session) = call.arguments[1] else {
                throw DBusError.invalidArgs("bad app or session")
            }
            let direction = call.message.member == "Upload" ? "upload" : "download"
            let id: UInt64 = locked {
                let id = nextID
                nextID += 1
                entries[id] = Entry(
                    app: app, session: session,
                    details: ["state": .string("queued"), "direction": .string(direction), "bytes-done": .uint64(0),
                              "bytes-total": .uint64(0), "reason": .string("")])
                return id
            }
            return .reply([.uint64(id)])
        }
        let change: (DBusMethodCall) throws -> DBusMethodResult = { [unowned self] call in
            record(call)
            let id: UInt64 = try call.argument(0)
            guard locked({ entries[id] != nil }) else {
                throw DBusError(Self.unknownTransfer, "transfer \(id) has ended or never existed")
            }
            return .reply([])
        }
        let transfer: [DBusArgument] = [.init("app_id", .string), .init("session_id", .string)]
        return DBusInterface(
            Self.interface,
            methods: [
                DBusMethod(
                    "Download", inputs: transfer + [.init("url", .string), .init("path", .string), .init("o", vardict)],
                    outputs: [id], handler: add),
                DBusMethod(
                    "Upload", inputs: transfer + [.init("path", .string), .init("url", .string), .init("o", vardict)],
                    outputs: [id], handler: add),
                DBusMethod("CancelTransfer", inputs: [id], handler: change),
                DBusMethod("SuspendTransfer", inputs: [id], handler: change),
                DBusMethod("ResumeTransfer", inputs: [id], handler: change),
                DBusMethod("GetTransfer", inputs: [id], outputs: [.init("details", vardict)]) { [unowned self] call in
                    record(call)
                    let id: UInt64 = try call.argument(0)
                    guard let entry = locked({ entries[id] }) else {
                        throw DBusError(Self.unknownTransfer, "transfer \(id) is unknown")
                    }
                    return .reply([.vardict(entry.details)])
                },
                DBusMethod(
                    "ListTransfers",
                    outputs: [.init("transfers", .array(.structure([.uint64, .string, .string, vardict])))]
                ) { [unowned self] call in
                    record(call)
                    let rows: [DBusValue] = locked { entries.sorted { $0.key > $1.key } }.map { id, entry in
                        .structure([.uint64(id), .string(entry.app), .string(entry.session), .vardict(entry.details)])
                    }
                    return .reply([.array(element: .structure([.uint64, .string, .string, vardict]), rows)])
                },
            ],
            signals: [DBusSignal("TransferChanged")])
    }
}
