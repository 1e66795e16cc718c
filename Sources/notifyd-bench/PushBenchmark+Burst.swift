import Glibc
import NotifyTestingCore
import Synchronization

extension PushBenchmark {
    /// What a burst came to.
    struct Burst {
        let delivered: Int
        /// Registrations whose messages all came, once each, in the order sent.
        let inOrder: Int
        /// From the first POST to the last `Message`.
        let seconds: Double
    }

    /// 10 threads, one per app, each POSTing 100 pushes one after another
    /// on a connection of its own, all at once; then waits (at most 120 s)
    /// for every message, and checks each app's order.
    func burst(_ connector: BenchPushConnector, endpoints: [String], port: UInt16) throws(BenchFailure) -> Burst {
        let already = connector.deliveryCount
        let failures = Mutex<[String]>([])
        let start = MonotonicClock.nanoseconds()
        let threads = try ClientThreads(count: endpoints.count, onFailure: {}) { app in
            let poster = PushPoster(port: port)
            defer { poster.close() }
            for index in 0..<Self.burstPerApp {
                do {
                    let (_, status) = try poster.post(Self.burstBody(app: app, index: index), to: endpoints[app])
                    if status != 201 { failures.withLock { $0.append("push \(index) to app \(app): HTTP \(status)") } }
                } catch {
                    failures.withLock { $0.append("push \(index) to app \(app): \(error)") }
                    return
                }
            }
        }
        threads.join()
        let sent = endpoints.count * Self.burstPerApp
        _ = connector.waitForDeliveries(already + sent, seconds: 120)
        let deliveries = Array(connector.deliveries.dropFirst(already))
        if let failure = failures.withLock({ $0.first }) {
            Progress.say("push burst: \(failures.withLock { $0.count }) POSTs failed, the first: \(failure)")
        }
        var inOrder = 0
        for app in endpoints.indices {
            let got = deliveries.filter { $0.token == "bench-\(app)" }.map(\.body)
            if got == (0..<Self.burstPerApp).map({ Self.burstBody(app: app, index: $0) }) { inOrder += 1 }
        }
        let last = deliveries.map(\.arrived).max() ?? start
        return Burst(delivered: deliveries.count, inOrder: inOrder, seconds: Double(last > start ? last - start : 0) / 1e9)
    }

    /// The body of push `index` to app `app`: both in its first bytes,
    /// then 61 bytes more.
    static func burstBody(app: Int, index: Int) -> [UInt8] {
        [UInt8(app), UInt8(index >> 8), UInt8(index & 0xff)] + (0..<61).map { UInt8(truncatingIfNeeded: $0 &+ index) }
    }
}

extension BenchReport {
    mutating func addPush(_ result: PushBenchmark.Result) {
        rows += ReportRow.latencies(
            "push_delivery", "POST to the app's Message, through notifyd", result.notifyd,
            against: "POST to a bare libstrophe client", result.bare, [.p50, .p99], targets: [.p50: .ratioAtMost(1.5)])
        rows += pushFloorRows(result)
        rows.append(
            ReportRow(
                id: "push_burst_delivered", figure: "burst: pushes delivered of \(result.burstSent) to 10 apps",
                value: Double(result.burstDelivered), unit: .count, target: .exactly(Double(result.burstSent))))
        rows.append(
            ReportRow(
                id: "push_burst_in_order", figure: "burst: apps that got every push once, in order",
                value: Double(result.burstInOrder), unit: .count, target: .exactly(Double(PushBenchmark.burstApps))))
        rows.append(
            ReportRow(
                id: "push_burst_rate", figure: "burst: pushes delivered a second",
                value: result.burstSeconds > 0 ? Double(result.burstDelivered) / result.burstSeconds : nil,
                unit: .perSecond))
        notes.append(
            "Push: \(result.pushes) pushes of 256 bytes (after \(PushBenchmark.warmUp) to warm up), one at a time, "
                + "taking turns with the bare client; each timed from its POST written (HTTP/1.1, kept alive, to "
                + "Prosody with mod_unified_push on loopback; notifyd and the bare client both on STARTTLS) to the "
                + "app's Message arriving (notifyd: stored and committed first) or to the bare client's handler. "
                + "Floor: the bare client's p50 plus the p50s of the two things SPEC's order adds to any distributor, "
                + "timed in the same turns: a 4 KB page written in place and synced (fdatasync) beside notifyd's state, "
                + "and the same Message sent straight to the app through the same bus, one way. "
                + "Burst: 10 threads, one per app, 100 POSTs each at once.")
    }
}

extension BenchReport {
    /// The floor of a push through a distributor that stores before it
    /// delivers (``PushFloorProbe``), and notifyd against it.
    fileprivate func pushFloorRows(_ result: PushBenchmark.Result) -> [ReportRow] {
        let floor = result.bare.p50 + result.sync.p50 + result.directMessage.p50
        return [
            ReportRow(
                id: "push_floor_sync_p50", figure: "floor: a 4 KB page written and synced, p50",
                value: result.sync.p50 / 1e3, unit: .microseconds),
            ReportRow(
                id: "push_floor_message_p50", figure: "floor: Message straight to the app, p50",
                value: result.directMessage.p50 / 1e3, unit: .microseconds),
            ReportRow(
                id: "push_floor_p50", figure: "floor: bare client + synced page + Message", value: floor / 1e3,
                unit: .microseconds, baseline: "POST to a bare libstrophe client, p50",
                baselineValue: result.bare.p50 / 1e3),
            ReportRow(
                id: "push_delivery_over_floor_p50", figure: "POST to the app's Message, through notifyd, p50",
                value: result.notifyd.p50 / 1e3, unit: .microseconds, baseline: "floor: bare + synced page + Message",
                baselineValue: floor / 1e3),
        ]
    }
}
