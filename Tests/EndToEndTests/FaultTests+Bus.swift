import DBus
import Foundation
import Testing
import NotifyTesting

extension FaultTests {
    /// With handlers pending, badges set and a stream of calls in flight,
    /// the bus dies: notifyd exits with status 0 within a bound, and a new
    /// bus with a new notifyd on the same state has every answered change.
    @Test(.timeLimit(.minutes(1))) func theBusGoingAwayMidStreamEndsNotifydCleanlyWithEverythingKept() throws {
        let state = try makeTemporaryDirectory(prefix: "notifyd-state")
        defer { try? FileManager.default.removeItem(at: state) }
        let bus = try TestBus()
        let daemon = try DaemonProcess(bus: bus, stateDirectory: state)
        let client = try FaultClient(address: bus.address)
        try client.setBadge("org.example.Mail", 7)
        // Handlers pending before, answered one by one.
        let kept = (0..<20).map { StreamedCall.event(session: "kept-\($0)", app: "org.example.Kept") }
        var book = DurabilityBook()
        book.record(
            try kept.indices.map { index in
                let reply = try client.connection.call(kept[index].message()).arguments()
                return CallStream.Outcome(index: index, result: .success(reply), seconds: 0)
            }, of: kept, round: 0)

        let calls = (0..<2_000).map { index -> StreamedCall in
            index % 2 == 0 ? .event(session: "bus-\(index)", app: "org.example.Stream") : .increment(app: "org.example.Counter")
        }
        let stream = try CallStream(address: bus.address)
        stream.start(CallStream.Plan(count: calls.count, window: 32, makeCall: { try calls[$0].message() }))
        try stream.waitUntilSent(1_000, seconds: 10)
        bus.stop()
        try? waitUntil("notifyd exits", seconds: 5) { daemon.process?.isRunning != true }
        #expect(daemon.process?.isRunning == false, "notifyd still runs 5 s after the bus went away")
        #expect(daemon.stop(signal: SIGKILL) == 0, "exit status; log:\n\(daemon.log.suffix(2000))")
        #expect(daemon.log.contains("the bus went away"))
        // The calls in flight never end (see aCallInFlightEndsWithAnErrorWhenTheBusGoesAway): unanswered.
        let (outcomes, unfinished) = stream.waitForOutcomes(seconds: 2)
        let answeredBefore = book.callsAnswered
        book.record(
            outcomes, unfinished: unfinished, of: calls, round: 0,
            allowing: [DBusError.Name.disconnected, DBusError.Name.noReply])
        let answered = book.callsAnswered - answeredBefore
        #expect(answered > 0 && answered < calls.count, "the bus died mid-stream (\(answered) answered)")

        // A new bus and notifyd on the same state: everything is there.
        let newBus = try TestBus()
        let restarted = try DaemonProcess(bus: newBus, stateDirectory: state)
        let newClient = try FaultClient(address: newBus.address)
        #expect(try newClient.badge("org.example.Mail") == 7)
        #expect(try newClient.badge("org.example.Kept") == 20)
        try book.verify(newClient, round: 0)
        withExtendedLifetime(restarted) {}
    }

    /// A client's view of the same fault: calls waiting for their reply
    /// when the bus dies must end, with an error, not wait forever. (At
    /// the disconnect libdbus 1.14 drops its pending calls, and their
    /// timeouts, without calling their notify functions.)
    @Test(.timeLimit(.minutes(1))) func aCallInFlightEndsWithAnErrorWhenTheBusGoesAway() throws {
        let bus = try TestBus()
        // A peer that owns a name and never reads: calls to it wait.
        let silent = try DBusConnection.connect(to: .address(bus.address))
        #expect(try silent.requestName("org.example.Silent") == .primaryOwner)
        let stream = try CallStream(address: bus.address)
        let monitor = try DBusMonitor(
            bus: .address(bus.address), rules: ["type='method_call',interface='org.example.Silent',member='Wait'"])
        stream.start(CallStream.Plan(
            count: 3, window: 3, timeoutMilliseconds: 60_000,
            makeCall: { _ in
                try DBusMessage.methodCall(
                    destination: "org.example.Silent", path: "/", interface: "org.example.Silent", member: "Wait")
            }))
        try stream.waitUntilSent(3, seconds: 5)
        // In flight: the bus has routed all three to the silent peer.
        for index in 1...3 { try monitor.waitFor("call \(index) to the silent peer") { $0.member == "Wait" } }
        bus.stop()
        let (outcomes, unfinished) = stream.waitForOutcomes(seconds: 5)
        #expect(unfinished.isEmpty, "\(unfinished.count) of 3 calls neither answered nor failed 5 s after the bus went away")
        #expect(outcomes.allSatisfy { $0.error != nil })
        withExtendedLifetime(silent) {}
    }
}
