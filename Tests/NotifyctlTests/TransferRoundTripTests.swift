import DBus
import Foundation
import NotifyTesting
import Testing

/// `download` and `upload` as processes against
/// ``FakeTransfers`` on a private bus: what notifyd is asked, what is
/// printed, and how `--wait` follows a transfer (its signals, an
/// impostor's, a restart of notifyd, notifyd gone for good, Ctrl-C).
@Suite(.serialized) struct TransferRoundTripTests {
    let bus: TestBus
    let fake: FakeTransfers
    let notifyctl: NotifyctlRunner
    let directory: URL

    init() throws {
        bus = try TestBus()
        fake = try FakeTransfers(address: bus.address)
        directory = try makeTemporaryDirectory(prefix: "notifyctl-transfer")
        notifyctl = NotifyctlRunner(bus: bus, environment: ["TZ": "UTC"])
    }

    func start(_ arguments: String...) throws -> OutputProcess {
        try OutputProcess(notifyctl.executable, arguments, notifyctl.environment)
    }

    /// Starts `download URL -o DIRECTORY --wait ...`; returns once notifyd
    /// was asked and the ID printed.
    func waitingDownload(_ extra: String...) throws -> OutputProcess {
        let process = try OutputProcess(
            notifyctl.executable, ["download", "https://example.org/a.iso", "-o", directory.path, "--wait"] + extra,
            notifyctl.environment)
        _ = try fake.waitForCall("Download")
        try waitUntil("notifyctl reads the transfer") { fake.calls.contains { $0.member == "GetTransfer" } }
        return process
    }

    @Test func downloadAsksForTheFileInTheDirectoryAndPrintsTheID() throws {
        let result = try notifyctl(
            "download", "https://example.org/a.iso", "-o", directory.path, "--header", "Cookie: id=42", "--sha256",
            String(repeating: "AB", count: 32), "--allow-metered", "--session", "s1")
        #expect(result.status == 0 && result.stdout == "7\n", "\(result.stderr)")
        let call = try fake.waitForCall("Download")
        #expect(Array(call.arguments.prefix(4)) == [
            .string("notifyctl"), .string("s1"), .string("https://example.org/a.iso"), .string(directory.path + "/"),
        ])
        let options = try #require(call.arguments.last?.vardictEntries)
        #expect(options["headers"] == ["Cookie": "id=42"].dbusValue)
        #expect(options["sha256"] == .string(String(repeating: "ab", count: 32)))
        #expect(options["allow-metered"] == .boolean(true) && options["overwrite"] == nil)
    }

    @Test func downloadGoesToTheXDGDownloadsFolder() throws {
        let home = directory.path
        try FileManager.default.createDirectory(atPath: home + "/config", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home + "/Dl", withIntermediateDirectories: true)
        try "XDG_DOWNLOAD_DIR=\"$HOME/Dl\"\n".write(toFile: home + "/config/user-dirs.dirs", atomically: true, encoding: .utf8)
        var runner = notifyctl
        runner.environment["HOME"] = home
        runner.environment["XDG_CONFIG_HOME"] = home + "/config"
        let result = try runner.run(["download", "http://example.org/a.iso", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"path\":\"\(home)/Dl/\""), "\(result.stdout)")
        #expect(result.stdout.hasPrefix("{\"transfer_id\":7,\"app\":\"notifyctl\",\"session\":\"download-"))
        #expect(try fake.waitForCall("Download").arguments[3] == .string(home + "/Dl/"))
    }

    @Test func uploadMakesTheFileAbsolute() throws {
        try "x".write(toFile: directory.path + "/f.txt", atomically: true, encoding: .utf8)
        let command = "cd '\(directory.path)' && '\(notifyctl.executable)' upload f.txt https://example.org/f --method post"
        let result = try runProcess("/bin/sh", ["-c", command], environment: notifyctl.environment)
        #expect(result.status == 0 && result.stdout == "7\n", "\(result.stderr)")
        let call = try fake.waitForCall("Upload")
        #expect(call.arguments[2] == .string(directory.path + "/f.txt"))
        #expect(call.arguments[3] == .string("https://example.org/f"))
        #expect(call.arguments.last?.vardictEntries?["method"] == .string("POST"))
        let missing = try notifyctl("upload", directory.path + "/none", "https://example.org/f")
        #expect(missing.status == 2 && missing.stderr.contains("No such file"), "\(missing.stderr)")
    }

    @Test func waitFollowsTheTransferToItsFile() throws {
        let process = try waitingDownload()
        try fake.change(7, ["state": .string("running"), "bytes-total": .uint64(100)])
        #expect(process.waitForOutput { $0.contains("running  0%  0 B / 100 B") }, "\(process.output)")
        try fake.change(7, ["bytes-done": .uint64(60)])
        try fake.change(
            7, ["state": .string("completed"), "bytes-done": .uint64(100), "path": .string(directory.path + "/a.iso")])
        #expect(process.finish() == 0, "\(process.errors)")
        #expect(process.output.hasPrefix("7\nqueued\nrunning  0%  0 B / 100 B\n"), "\(process.output)")
        #expect(process.output.hasSuffix("completed\n\(directory.path)/a.iso\n"), "\(process.output)")
    }

    @Test func waitIgnoresAnImpostorAndReportsAFailure() throws {
        let process = try waitingDownload()
        let impostor = try DBusConnection.connect(to: .address(bus.address))
        try impostor.emitSignal(
            path: "/org/notifyd/Notifyd1", interface: FakeTransfers.interface, member: "TransferChanged",
            [.uint64(7), .string("notifyctl"), .string("s"), .string("completed"), .vardict(["state": .string("completed")])])
        impostor.flush()
        try fake.change(7, ["state": .string("failed"), "reason": .string("Not found (HTTP 404)")])
        #expect(process.finish() == 1)
        #expect(process.errors == "notifyctl: transfer 7 failed: Not found (HTTP 404)\n")
        #expect(!process.output.contains("completed"), "\(process.output)")
    }

    @Test func waitReadsTheTransferAgainAfterARestart() throws {
        let process = try waitingDownload("--json")
        try fake.leave()
        try fake.change(7, ["state": .string("completed"), "path": .string("/x/a (1).iso")], emit: false)
        try fake.start()
        #expect(process.finish() == 0, "\(process.errors)")
        #expect(process.errors.contains("notifyd left the bus; transfer 7 goes on once it is back"))
        let object = try JSONSerialization.jsonObject(with: Data(process.output.utf8)) as? [String: Any]
        #expect(object?["state"] as? String == "completed" && object?["path"] as? String == "/x/a (1).iso")
        #expect(object?["id"] as? Int == 7 && object?["app"] as? String == "notifyctl")
    }

    @Test func waitExits3WhenNotifydDoesNotComeBack() throws {
        let process = try waitingDownload()
        try fake.leave()
        #expect(process.finish() == 3)
        #expect(process.errors.contains("notifyd left the bus and cannot be started again"), "\(process.errors)")
    }

    @Test func ctrlCStopsFollowingButNotTheTransfer() throws {
        let process = try waitingDownload()
        #expect(process.interrupt() == 130)
        #expect(process.errors.contains("stopped following transfer 7, which goes on"), "\(process.errors)")
        #expect(!fake.calls.contains { $0.member == "CancelTransfer" })
    }
}
