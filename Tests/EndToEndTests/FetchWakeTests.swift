import DBus
import Foundation
import NotifyTesting
import Synchronization
import Testing

/// The three ways a fetch reaches an app (SPEC "Background fetch"), against
/// the real daemon: `ActivateAction` to a DBusActivatable app; the desktop
/// file's `background-fetch` action, launched with the fetch in its
/// environment and no signal blocked, completing with a short-lived
/// `gdbus call`; and a listener that completes from `PerformFetch` and exits.
@Suite struct FetchWakeTests {
    static let fetch = "org.notifyd.Notifyd1.Fetch"
    let fixture: Fixture
    let data: URL
    let applications: URL
    let recorder: SignalRecorder

    init() throws {
        data = try makeTemporaryDirectory(prefix: "notifyd-fetch-wake")
        applications = data.appendingPathComponent("share/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        fixture = try Fixture(extraEnvironment: [
            "XDG_DATA_DIRS": data.appendingPathComponent("share").path + ":/usr/share",
            "XDG_DATA_HOME": data.appendingPathComponent("home").path,
        ])
        recorder = try SignalRecorder(address: fixture.bus.address, rules: [DBusMatchRule(interface: Self.fetch)])
    }

    func fetchNow(_ app: String) throws -> UInt64 {
        guard case .uint64(let id) = try #require(try fixture.call(Self.fetch, "FetchNow", [.string(app)]).first) else {
            throw TestFailure("FetchNow returned no ID")
        }
        return id
    }

    func completed(_ id: UInt64) throws -> String {
        let signals = try #require(recorder.wait(seconds: 20) { $0.member == "FetchCompleted" && $0.arguments[1] == .uint64(id) })
        guard case .string(let result) = try #require(signals.last).arguments[2] else { return "" }
        return result
    }

    @Test func aDBusActivatableAppGetsActivateActionWithTheFetchID() throws {
        let app = try FakeDBusActivatableApp(address: fixture.bus.address)
        try app.writeDesktopFile(into: applications)
        let id = try fetchNow(app.appID)
        let call = try #require(try app.waitForCalls(count: 1).first)
        #expect(call.method == "ActivateAction")
        #expect(call.action == "background-fetch")
        #expect(call.parameters == [.uint64(id)])
        _ = try fixture.call(Self.fetch, "CompleteFetch", [.uint64(id), .string("no-data")])
        #expect(try completed(id) == "no-data")
    }

    @Test func theDesktopActionRunsWithTheFetchInItsEnvironmentAndCompletes() throws {
        let output = data.appendingPathComponent("action.out")
        let script = data.appendingPathComponent("fetch-action")
        // A worker as a user would write it: note what it got, complete, exit.
        try """
            #!/bin/sh
            { echo "id=$NOTIFYD_FETCH_ID"; echo "deadline=$NOTIFYD_FETCH_DEADLINE"; echo "arg=$1"
              grep '^SigBlk:' /proc/self/status; } > '\(output.path).tmp'
            mv '\(output.path).tmp' '\(output.path)'
            exec gdbus call --session --dest org.notifyd.Notifyd1 --object-path /org/notifyd/Notifyd1 \\
                --method org.notifyd.Notifyd1.Fetch.CompleteFetch "$NOTIFYD_FETCH_ID" new-data
            """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        try """
            [Desktop Entry]
            Type=Application
            Name=Action Reader
            Exec=/bin/false
            Actions=background-fetch;

            [Desktop Action background-fetch]
            Name=Fetch
            Exec=\(script.path) --background
            """.write(to: applications.appendingPathComponent("org.example.ActionReader.desktop"), atomically: true, encoding: .utf8)
        let id = try fetchNow("org.example.ActionReader")
        #expect(try completed(id) == "new-data")
        let perform = try #require(recorder.received.first { $0.member == "PerformFetch" })
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
        guard case .int64(let deadline) = perform.arguments[2] else { throw TestFailure("\(perform)") }
        #expect(lines.prefix(3) == ["id=\(id)", "deadline=\(deadline)", "arg=--background"])
        #expect(lines.last == "SigBlk:\t0000000000000000", "the action starts with no signal blocked")
    }

    @Test func aListenerCompletesFromPerformFetchAndExits() throws {
        let listener = data.appendingPathComponent("listener.py")
        try """
            import sys
            from gi.repository import Gio, GLib
            bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            loop = GLib.MainLoop()
            def perform(connection, sender, path, interface, signal, parameters):
                app, fetch_id, deadline = parameters.unpack()
                if app != "org.example.Listener":
                    return
                bus.call_sync("org.notifyd.Notifyd1", "/org/notifyd/Notifyd1", "org.notifyd.Notifyd1.Fetch",
                              "CompleteFetch", GLib.Variant("(ts)", (fetch_id, "failed")), None, 0, -1, None)
                loop.quit()
            bus.signal_subscribe(None, "org.notifyd.Notifyd1.Fetch", "PerformFetch", "/org/notifyd/Notifyd1",
                                 None, 0, perform)
            # The match rule is sent without waiting: a round trip to the bus
            # after it means the bus has it before "ready" is said.
            bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                          None, None, 0, -1, None)
            print("ready", flush=True)
            loop.run()
            """.write(to: listener, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [listener.path]
        process.environment = childEnvironment(["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address])
        let pipe = Pipe()
        process.standardOutput = pipe
        // Its standard error is the test runner's: a listener left behind
        // would keep that open and the run from ending.
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        // A barrier: the listener says it has subscribed.
        let ready = pipe.fileHandleForReading.availableLine(seconds: 20)
        #expect(ready == "ready")
        let id = try fetchNow("org.example.Listener")
        #expect(try completed(id) == "failed")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        guard case .dictionary(_, _, let entries) = try #require(try fixture.call(Self.fetch, "GetFetchSchedule", [.string("org.example.Listener")]).first) else {
            throw TestFailure("no schedule")
        }
        #expect(entries.contains { $0.key == .string("last-result") && $0.value == .variant(.string("failed")) })
    }
}


extension FetchWakeTests {
    /// The README's GApplication example, as written there, started by
    /// D-Bus activation when notifyd sends `ActivateAction`: it completes
    /// the fetch it was given.
    @Test func theReadmeExampleIsStartedByActivateActionAndCompletes() throws {
        let readme = try String(contentsOf: Executables.repositoryRoot().appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "A GApplication (Python"))
        let block = try #require(readme.range(of: "```python\n", range: start.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: block.upperBound..<readme.endIndex))
        let example = data.appendingPathComponent("reader.py")
        try String(readme[block.upperBound..<end.lowerBound]).write(to: example, atomically: true, encoding: .utf8)
        try fixture.bus.installService(name: "org.example.Reader", executable: "/usr/bin/python3", arguments: [example.path])
        try "[Desktop Entry]\nType=Application\nName=Reader\nExec=/bin/false\nDBusActivatable=true\n"
            .write(to: applications.appendingPathComponent("org.example.Reader.desktop"), atomically: true, encoding: .utf8)
        let id = try fetchNow("org.example.Reader")
        #expect(try completed(id) == "new-data")
    }
}

extension FileHandle {
    /// The first line written, waiting at most `seconds` (nil at end of file or time-out).
    func availableLine(seconds: Double) -> String? {
        let result = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let handle = self
        Thread.detachNewThread {
            var bytes: [UInt8] = []
            while true {
                let chunk = handle.readData(ofLength: 1)
                guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
                bytes.append(byte)
            }
            result.withLock { $0 = String(decoding: bytes, as: UTF8.self) }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}
