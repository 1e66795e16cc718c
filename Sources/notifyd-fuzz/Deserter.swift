import DBus
import NotifyTestingCore

/// Connections that send a burst and leave without reading a reply:
/// each burst is a new connection that queues up to 100 hostile messages
/// (sometimes a `WaitForSession` that notifyd must hold), and closes,
/// flushing what is queued or not. Their cases are judged by nothing but
/// notifyd staying up and its state the same afterwards (no family that
/// needs its reply, as the accepted ones, is drawn for them).
enum Deserter {
    static func run(address: String, generator: CaseGenerator, source: CaseSource, tally: Tally, prepared: Bool) {
        while let first = source.take() {
            var rng = SplitMix64(seed: generator.seed, stream: first ^ 0x00DE_5E27)
            let burst = rng.int(1...100)
            let connection: DBusConnection
            do {
                connection = try DBusConnection.connect(to: .address(address))
            } catch {
                tally.sendFailed("a deserting connection could not connect: \(error)")
                return
            }
            var index: UInt64? = first
            var sent = 0
            while let current = index {
                let testCase = generator.make(current)
                do {
                    try connection.send(testCase.message(notifydUniqueName: nil))
                    tally.sent(testCase, abandoned: true)
                } catch {
                    tally.sendFailed("#\(current): cannot send: \(error)")
                }
                sent += 1
                index = sent < burst ? source.take() : nil
            }
            if prepared, rng.chance(0.3), let wait = try? DBusMessage.methodCall(
                destination: Contract.busName, path: Contract.path, interface: Contract.sessions,
                member: "WaitForSession", arguments: [.string(Legit.pendingSession)])
            {
                _ = try? connection.send(wait)
            }
            // close() writes what is queued first; dropping the connection does not.
            if rng.chance(0.7) { connection.close() }
        }
    }
}
