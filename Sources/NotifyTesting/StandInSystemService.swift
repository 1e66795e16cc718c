import Foundation
import NotifyTestingCore

/// A stand-in for a system service that publishes its state as D-Bus
/// properties (NetworkManager's `Metered`, UPower's `OnBattery`), on a
/// private system bus: a python3-dbus object that owns `busName`, answers
/// `org.freedesktop.DBus.Properties` `Get` and `GetAll` for `interface`
/// (nothing for any other), and changes a property when a test calls
/// ``set(_:to:)``, emitting `PropertiesChanged` as the real service does.
/// Ended by ``stop()``, or when released.
public final class StandInSystemService {
    public let busName: String
    public let path: String
    let system: TestBus
    private let process: SpawnedProcess

    /// Starts it and waits (bounded) until it owns `busName`.
    ///
    /// - Parameter properties: each property's first value, as a Python
    ///   expression of its D-Bus type (`dbus.UInt32(70)`, `dbus.Boolean(True)`).
    public init(
        on system: TestBus, busName: String, path: String, interface: String, properties: KeyValuePairs<String, String>
    ) throws {
        self.system = system
        self.busName = busName
        self.path = path
        let name = busName.split(separator: ".").last.map(String.init) ?? "service"
        let script = system.directory.appendingPathComponent("stand-in-\(name).py")
        let values = properties.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
        try Self.script.replacingOccurrences(of: "@@PROPERTIES@@", with: values)
            .write(to: script, atomically: true, encoding: .utf8)
        let output = system.directory.appendingPathComponent("stand-in-\(name).out").path
        process = try SpawnedProcess(
            "/usr/bin/python3", [script.path, busName, path, interface],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address], standardOutput: .file(output),
            standardError: .standardOutput)
        try waitUntil("the stand-in \(busName) is on the bus") {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("ready")
        }
    }

    deinit { stop() }

    /// Ends it (a test's `defer`, which also keeps it alive to the end of
    /// the test). Idempotent.
    public func stop() { _ = process.kill(SIGKILL) }

    /// Sets `property` to `value`, in GVariant text (`<uint32 2>`,
    /// `<false>`), and emits `PropertiesChanged`, as a user's switch would.
    public func set(_ property: String, to value: String) throws {
        let result = try runProcess(
            "/usr/bin/gdbus",
            ["call", "--system", "--dest", busName, "--object-path", path, "--method", "org.example.StandIn.Set",
             property, value],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
        guard result.status == 0 else { throw TestFailure("\(busName): setting \(property) to \(value) failed: \(result.stderr)") }
    }

    static let script = #"""
        import dbus, dbus.service, dbus.mainloop.glib, sys
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        NAME, PATH, IFACE = sys.argv[1], sys.argv[2], sys.argv[3]
        class StandIn(dbus.service.Object):
            properties = {@@PROPERTIES@@}
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
            def Get(self, interface, name):
                return self.GetAll(interface)[name]
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
            def GetAll(self, interface):
                return dbus.Dictionary(self.properties if interface == IFACE else {}, signature="sv")
            @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
            def PropertiesChanged(self, interface, changed, invalidated):
                pass
            @dbus.service.method("org.example.StandIn", in_signature="sv")
            def Set(self, name, value):
                self.properties[name] = value
                self.PropertiesChanged(IFACE, dbus.Dictionary({name: value}, signature="sv"), [])
        bus = dbus.SystemBus()
        name = dbus.service.BusName(NAME, bus)
        StandIn(bus, PATH)
        print("ready", flush=True)
        GLib.MainLoop().run()
        """#
}
