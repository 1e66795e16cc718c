import DBus
import NotifyCore
import NotifyTestingCore
import Synchronization

/// What one client of the soak section did. Made on the client's thread,
/// read by the main thread (a copy, under the client's lock) while it runs.
struct SoakClientOutcome: Sendable {
    /// Answered calls, by kind.
    var answered: [SoakCall: Int] = [:]
    /// Error replies, by D-Bus error name, with one example each.
    var errors: [String: Int] = [:]
    var errorExamples: [String: String] = [:]
    /// Why the client could not start, if it could not.
    var setUpFailure: String?

    var answeredCount: Int { answered.values.reduce(0, +) }
    var errorCount: Int { errors.values.reduce(0, +) }

    /// Adds another client's counts to these.
    mutating func merge(_ other: SoakClientOutcome) {
        answered.merge(other.answered, uniquingKeysWith: +)
        errors.merge(other.errors, uniquingKeysWith: +)
        errorExamples.merge(other.errorExamples) { mine, _ in mine }
        if setUpFailure == nil { setUpFailure = other.setUpFailure }
    }
}

/// One client of the soak section: a thread with a private connection,
/// acting for apps of its own (`org.notifyd.Soak.C2.A5`), making blocking
/// calls of ``SoakCall`` one after another until told to stop.
///
/// It keeps what it started so that every call is one notifyd must accept:
/// it completes only sessions whose handlers are not about to expire, ends
/// only its own running tasks, starts a fetch only for an app with none
/// running. So any error reply is a defect (the report counts them).
final class SoakClient {
    let number: Int
    let apps: [String]
    private let connection: DBusConnection
    private var generator: SplitMix64
    private var book = SoakClientBook()
    private(set) var outcome = SoakClientOutcome()

    /// Apps each client acts for.
    static let appsPerClient = 8
    /// Of those, the apps it reports states for (activations reset the
    /// badge); the others get events, badges, fetches and tasks, and keep a
    /// badge above 0. So the LauncherEntry connections notifyd holds for
    /// badged apps (one per app) stay open, and a change in descriptors
    /// means a leak rather than a badge that came and went.
    static let activityAppsPerClient = 2

    private var badgeApps: ArraySlice<String> { apps.dropLast(Self.activityAppsPerClient) }
    private var activityApps: ArraySlice<String> { apps.suffix(Self.activityAppsPerClient) }

    private init(number: Int, connection: DBusConnection) {
        self.number = number
        self.connection = connection
        apps = (0..<Self.appsPerClient).map { "org.notifyd.Soak.C\(number).A\($0)" }
        generator = SplitMix64(seed: 0x736f_616b_0000_0000 &+ UInt64(number))
    }

    /// Connects, then makes calls until `stop` is set, at most
    /// `callsPerSecond` (0: no pacing), publishing its outcome to `slot`
    /// after each block of calls and at the end.
    static func run(number: Int, address: String, callsPerSecond: Double, stop: StopFlag, slot: SoakOutcomeSlot) {
        let client: SoakClient
        do {
            client = SoakClient(number: number, connection: try DBusConnection.connect(to: .address(address), private: true))
        } catch {
            slot.publish(SoakClientOutcome(setUpFailure: "client \(number): \(error)"))
            return
        }
        let start = MonotonicClock.nanoseconds()
        var made = 0
        while !stop.isRaised {
            for call in CallMix.soak.block.shuffled(using: &client.generator) {
                client.perform(call)
            }
            made += CallMix.soak.block.count
            slot.publish(client.outcome)
            if callsPerSecond > 0 { pace(until: start + UInt64(Double(made) / callsPerSecond * 1e9), stop: stop) }
        }
        client.cleanUp()
        slot.publish(client.outcome)
    }

    /// Sleeps until `deadline` (monotonic nanoseconds) or `stop`, in steps
    /// of at most 0.1 s.
    private static func pace(until deadline: UInt64, stop: StopFlag) {
        while !stop.isRaised {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { return }
            MonotonicClock.sleep(seconds: min(0.1, Double(deadline - now) / 1e9))
        }
    }

    /// One call, or the call that makes it possible (see ``SoakClientBook``).
    private func perform(_ wanted: SoakCall) {
        let now = MonotonicClock.nanoseconds()
        let intent: SoakIntent
        switch wanted {
        case .didBecomeActive, .willResignActive, .getState:
            intent = book.intent(
                for: wanted, app: activityApps.randomElement(using: &generator)!, apps: activityApps, now: now,
                using: &generator)
        default:
            intent = book.intent(
                for: wanted, app: badgeApps.randomElement(using: &generator)!, apps: badgeApps, now: now,
                using: &generator)
        }
        let reply: DBusMessage
        do {
            reply = try connection.call(
                DBusMessage.methodCall(
                    destination: NotifydNames.busName, path: NotifydNames.objectPath,
                    interface: intent.interface, member: intent.member, arguments: intent.arguments))
        } catch {
            outcome.errors[error.name, default: 0] += 1
            outcome.errorExamples[error.name] =
                outcome.errorExamples[error.name] ?? "client \(number), \(intent.call.rawValue): \(error.message)"
            return
        }
        outcome.answered[intent.call, default: 0] += 1
        book.answered(intent, reply: reply, now: now, using: &generator)
    }

    /// Ends what the client left running: its tasks and its fetches, so
    /// that nothing of it is left to expire after the soak.
    private func cleanUp() {
        for intent in book.cleanUpIntents() {
            _ = try? connection.call(
                DBusMessage.methodCall(
                    destination: NotifydNames.busName, path: NotifydNames.objectPath,
                    interface: intent.interface, member: intent.member, arguments: intent.arguments))
        }
    }
}

/// A client's outcome, published for the main thread to read while the
/// client runs.
final class SoakOutcomeSlot: Sendable {
    private let outcome = Mutex(SoakClientOutcome())

    func publish(_ latest: SoakClientOutcome) { outcome.withLock { $0 = latest } }

    var latest: SoakClientOutcome { outcome.withLock { $0 } }
}
