import DBus
import Foundation

/// A `DBusActivatable` app on a ``TestBus``: it owns its app ID as a bus
/// name and serves `org.freedesktop.Application` at the path GIO derives
/// from it (`org.example.Fake` → `/org/example/Fake`), recording every
/// call, for tests of launching through GIO. Its desktop file says
/// `Exec=/bin/false`, so a launch that spawns instead of calling over D-Bus
/// shows as a missing call.
public final class FakeDBusActivatableApp: @unchecked Sendable {
    /// One call to `org.freedesktop.Application`.
    public struct Call: Sendable, Hashable {
        /// `Activate`, `Open` or `ActivateAction`.
        public var method: String
        /// The URIs of `Open`, else empty.
        public var uris: [String]
        /// The action of `ActivateAction`, else nil.
        public var action: String?
        /// The parameter of `ActivateAction` (its `av`, unwrapped), else empty.
        public var parameters: [DBusValue] = []
        /// `platform_data` with its variants unwrapped, e.g.
        /// `desktop-startup-id` or `activation-token`.
        public var platformData: [String: DBusValue]
    }

    public static let interfaceName = "org.freedesktop.Application"

    public let appID: String
    /// The object path GIO calls: the app ID with `.` as `/` and `-` as `_`.
    public var path: String { "/" + appID.replacingOccurrences(of: ".", with: "/").replacingOccurrences(of: "-", with: "_") }

    private let thread: LoopThread
    private let condition = NSCondition()
    private var recorded: [Call] = []
    private var connection: DBusConnection?
    private var stopped = false
    private var holding = false
    /// Calls left unanswered while holding (loop thread only).
    private var held: [DBusMethodCall] = []

    /// Connects to the bus at `address` and takes `appID` as a name.
    public init(address: String, appID: String = "org.example.Fake") throws {
        self.appID = appID
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            try connection.export(DBusObject(path: self.path, interfaces: [self.interface()]))
            guard try connection.requestName(appID) == .primaryOwner else {
                throw TestFailure("\(appID) is already taken on \(address)")
            }
            self.connection = connection
        }
    }

    deinit { stop() }

    /// The desktop file of such an app (`APP_ID.desktop`): GIO activates it
    /// over D-Bus and never runs its `Exec`. `mimeTypes` makes it a
    /// candidate handler of those types (`mimeapps.list` makes it the default).
    public static func desktopEntry(name: String = "Fake App", mimeTypes: [String] = [], icon: String? = nil) -> String {
        var text = "[Desktop Entry]\nType=Application\nName=\(name)\nExec=/bin/false %U\n"
        if let icon { text += "Icon=\(icon)\n" }
        text += "DBusActivatable=true\nStartupNotify=true\n"
        if !mimeTypes.isEmpty { text += "MimeType=\(mimeTypes.joined(separator: ";"));\n" }
        return text
    }

    /// Writes ``desktopEntry(name:mimeTypes:)`` as `APP_ID.desktop` into
    /// `applications` (a `…/applications` directory of `XDG_DATA_DIRS`,
    /// written before the process under test first uses GIO).
    public func writeDesktopFile(
        into applications: URL, name: String = "Fake App", mimeTypes: [String] = [], icon: String? = nil
    ) throws {
        try Self.desktopEntry(name: name, mimeTypes: mimeTypes, icon: icon)
            .write(to: applications.appendingPathComponent("\(appID).desktop"), atomically: true, encoding: .utf8)
    }

    /// Leaves the bus (the name goes away) and ends the loop thread. Idempotent.
    public func stop() {
        guard locked({ () -> Bool in
            defer { stopped = true }
            return !stopped
        }) else { return }
        try? thread.sync {
            self.held.removeAll()  // answered with an error as they go
            self.connection = nil
        }
        thread.stop()
    }

    /// Whether calls from now on are recorded but left unanswered (until
    /// ``stop()``), like an app that hangs on start-up.
    public func holdReplies(_ hold: Bool) { locked { holding = hold } }

    /// Every call so far, in order.
    public var calls: [Call] { locked { recorded } }

    /// Waits (bounded) until `count` calls were recorded; returns them all.
    @discardableResult
    public func waitForCalls(count: Int, seconds: Double = 20) throws -> [Call] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while recorded.count < count {
            guard condition.wait(until: deadline) else {
                throw TestFailure("\(appID) did not get \(count) call(s) within \(seconds) s; it has \(recorded)")
            }
        }
        return recorded
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body()
    }

    /// Records the call; answers it now, or keeps it when holding.
    private func answer(
        _ call: DBusMethodCall, _ method: String, uris: [String] = [], action: String? = nil,
        parameters: [DBusValue] = [], platformData: [String: DBusValue]
    ) -> DBusMethodResult {
        let hold = locked {
            recorded.append(
                Call(method: method, uris: uris, action: action, parameters: parameters, platformData: platformData))
            return holding
        }
        guard hold else { return .reply([]) }
        held.append(call)
        return .deferred
    }

    private func interface() -> DBusInterface {
        let platformData = DBusArgument("platform_data", .dictionary(key: .string, value: .variant))
        return DBusInterface(
            Self.interfaceName,
            methods: [
                DBusMethod("Activate", inputs: [platformData]) { [unowned self] call in
                    self.answer(call, "Activate", platformData: try call.argument(0))
                },
                DBusMethod("Open", inputs: [.init("uris", .array(.string)), platformData]) { [unowned self] call in
                    self.answer(call, "Open", uris: try call.argument(0), platformData: try call.argument(1))
                },
                DBusMethod(
                    "ActivateAction",
                    inputs: [.init("action_name", .string), .init("parameter", .array(.variant)), platformData]
                ) { [unowned self] call in
                    guard case .array(_, let wrapped) = try call.argument(1, as: DBusValue.self) else {
                        throw DBusError.invalidArgs("the parameter is not an array")
                    }
                    let parameters = wrapped.map { value -> DBusValue in
                        if case .variant(let inner) = value { inner } else { value }
                    }
                    return self.answer(
                        call, "ActivateAction", action: try call.argument(0), parameters: parameters,
                        platformData: try call.argument(2))
                },
            ])
    }
}
