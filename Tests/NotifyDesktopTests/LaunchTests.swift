import DBus
import Foundation
import Testing
import NotifyTesting

@testable import NotifyDesktop

extension LibnotifyTests {
    /// Launching apps and opening files through GIO (its desktop files,
    /// `mimeapps.list` and session bus are per process, hence this suite's
    /// place under the serialized one). The apps are in ``LaunchFixture``.
    @Suite struct Launching {
        @Test func aDBusActivatableAppIsActivatedOverTheBusWithTheToken() throws {
            let harness = try DesktopHarness()
            let app = try FakeDBusActivatableApp(address: harness.bus.address, appID: LaunchFixture.fakeApp)
            let outcome = try harness.notifier.waitForLaunch {
                $0.launchApp(LaunchFixture.fakeApp, activationToken: "token-1", completion: $1)
            }
            #expect(outcome == .launched)
            let calls = try app.waitForCalls(count: 1)
            #expect(calls.map(\.method) == ["Activate"])
            #expect(calls.first?.platformData["desktop-startup-id"] == .string("token-1"))
        }

        @Test func aFileOpensInItsDefaultAppOverTheBus() throws {
            let harness = try DesktopHarness()
            let app = try FakeDBusActivatableApp(address: harness.bus.address, appID: LaunchFixture.fakeApp)
            let outcome = try harness.notifier.waitForLaunch {
                $0.openPath(LaunchFixture.textFile.path, activationToken: nil, completion: $1)
            }
            #expect(outcome == .launched)
            let call = try #require(try app.waitForCalls(count: 1).first)
            #expect(call.method == "Open")
            #expect(call.uris == ["file://\(LaunchFixture.textFile.path)"])
            #expect(call.platformData["desktop-startup-id"] == nil)
        }

        @Test func anExecAppGetsThePathAsOneArgumentAndTheTokenInItsEnvironment() throws {
            let harness = try DesktopHarness()
            try? FileManager.default.removeItem(at: LaunchFixture.probeOutput)
            let path = LaunchFixture.sourceFile.path
            let outcome = try harness.notifier.waitForLaunch {
                $0.openPath(path, activationToken: "token-2", completion: $1)
            }
            #expect(outcome == .launched)
            let lines = try LaunchFixture.waitForOutput(LaunchFixture.probeOutput).split(separator: "\n")
            // GIO passes the path as GFile makes it (the temporary directory has a `//`).
            let canonical = path.replacingOccurrences(of: "//", with: "/")
            #expect(lines == [
                "arg=\(LaunchFixture.probeArgument)", "arg=\(canonical)",
                "XDG_ACTIVATION_TOKEN=token-2", "DESKTOP_STARTUP_ID=token-2",
            ])
        }

        @Test func aLaunchedAppStartsWithNoSignalBlocked() throws {
            let harness = try DesktopHarness()
            try? FileManager.default.removeItem(at: LaunchFixture.statusOutput)
            // The launch runs on the GLib thread, which blocks every asynchronous signal.
            let outcome = try harness.notifier.waitForLaunch {
                $0.launchApp(LaunchFixture.statusApp, activationToken: nil, completion: $1)
            }
            #expect(outcome == .launched)
            let status = try LaunchFixture.waitForOutput(LaunchFixture.statusOutput) { $0.contains("SigCgt:") }
            let fields = Dictionary(
                status.split(separator: "\n").compactMap { line -> (String, String)? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2 else { return nil }
                    return (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
                }, uniquingKeysWith: { first, _ in first })
            #expect(fields["Name"] == "cp")
            #expect(fields["SigBlk"] == "0000000000000000")
            // This process ignores SIGPIPE; GLib puts ignored signals back to their
            // default in the child. (Signal 32, also ignored here, is glibc's own.)
            let ignored = UInt64(fields["SigIgn"] ?? "", radix: 16)
            #expect(ignored.map { $0 & 0x7fff_ffff } == 0)
        }

        @Test func failuresSayWhy() throws {
            let harness = try DesktopHarness()
            func failure(_ start: (GLibDesktop, @escaping @Sendable (LaunchOutcome) -> Void) -> Void) throws -> String {
                guard case .failed(let message) = try harness.notifier.waitForLaunch(start) else {
                    throw TestFailure("the launch did not fail")
                }
                return message
            }
            let unknown = try failure { $0.launchApp("org.example.Nothing", activationToken: nil, completion: $1) }
            #expect(unknown.contains("org.example.Nothing.desktop"))
            // Nobody owns its name and the bus cannot start it: GIO reports the bus's answer.
            let absent = try failure { $0.launchApp(LaunchFixture.absentApp, activationToken: nil, completion: $1) }
            #expect(absent.hasPrefix("cannot launch Absent App (\(LaunchFixture.absentApp).desktop): "))
            #expect(absent.contains(LaunchFixture.absentApp))
            let relative = try failure { $0.openPath("report.txt", activationToken: nil, completion: $1) }
            #expect(relative.hasPrefix("cannot open report.txt: "))
            let missing = LaunchFixture.outputDirectory.appendingPathComponent("missing.txt").path
            let gone = try failure { $0.openPath(missing, activationToken: nil, completion: $1) }
            #expect(gone.hasPrefix("cannot open \(missing): "))

            harness.notifier.shutDown()
            let late = try failure { $0.launchApp(LaunchFixture.statusApp, activationToken: nil, completion: $1) }
            #expect(late == "the desktop notifier is shut down")
        }

        @Test func aLaunchStillWaitingForTheAppFailsAtShutDown() throws {
            let harness = try DesktopHarness()
            let app = try FakeDBusActivatableApp(address: harness.bus.address, appID: LaunchFixture.fakeApp)
            app.holdReplies(true)
            let outcome = OutcomeBox()
            harness.notifier.launchApp(LaunchFixture.fakeApp, activationToken: nil) { outcome.set($0) }
            try app.waitForCalls(count: 1)
            harness.notifier.shutDown()
            #expect(try outcome.wait(seconds: 20) == .failed(
                "cannot launch Fake App (\(LaunchFixture.fakeApp).desktop): the desktop notifier shut down first"))
        }
    }

    /// A click on a popup, from the server to the launched app.
    @Suite struct Clicking {
        @Test func theDefaultActionCarriesTheServersTokenToTheApp() throws {
            let harness = try DesktopHarness()
            let app = try FakeDBusActivatableApp(address: harness.bus.address, appID: LaunchFixture.fakeApp)
            let key = NotificationKey(app: LaunchFixture.fakeApp, slot: "handler:1")
            harness.notifier.post(NotificationRequest(
                key: key, appID: LaunchFixture.fakeApp, summary: "Download complete", withActions: true))
            let id = try harness.events.posted(key).id
            #expect(try harness.server.waitForNotifications(count: 1).first?.actionLabels == ["default": "Show in Fake App"])

            try harness.server.invokeAction(id: id, action: "default", activationToken: "token-3")
            let token = try harness.events.first { event -> String?? in
                guard case .actionInvoked(key, "default", let token) = event else { return nil }
                return .some(token)
            }
            #expect(token == "token-3")
            let outcome = try harness.notifier.waitForLaunch {
                $0.launchApp(key.app, activationToken: token, completion: $1)
            }
            #expect(outcome == .launched)
            #expect(try app.waitForCalls(count: 1).first?.platformData["desktop-startup-id"] == .string("token-3"))

            // libnotify forgets the token once the action has run.
            try harness.server.invokeAction(id: id, action: "default")
            let tokens = try harness.events.wait { events -> [String?]? in
                let tokens = events.compactMap { event -> String?? in
                    guard case .actionInvoked(key, _, let token) = event else { return nil }
                    return .some(token)
                }
                return tokens.count >= 2 ? tokens : nil
            }
            #expect(tokens == ["token-3", nil])
        }

        @Test func actionsKeepWorkingAfterTheServerRestartsUntilItSaysClosed() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: DesktopFixture.namedApp, slot: "handler:9")
            harness.notifier.post(NotificationRequest(
                key: key, appID: DesktopFixture.namedApp, summary: "Download complete", withActions: true,
                openPath: "/tmp/report.pdf"))
            let id = try harness.events.posted(key).id
            harness.server.stop()

            // A new server (same ids, as after a restart that kept its history) reports a click.
            let restarted = try RecordingNotificationServer(address: harness.bus.address)
            try restarted.invokeAction(id: id, action: "open", activationToken: "token-4")
            #expect(try harness.events.first { event -> String?? in
                guard case .actionInvoked(key, "open", let token) = event else { return nil }
                return .some(token)
            } == "token-4")
            #expect(harness.notifier.withTable { $0.count } == 1)

            try restarted.close(id: id, reason: 2)
            #expect(try harness.events.first { event -> Int32? in
                guard case .closed(key, let reason) = event else { return nil }
                return reason
            } == 2)
            #expect(harness.notifier.withTable { $0.count } == 0)
        }
    }
}
