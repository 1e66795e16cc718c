import DBus
import Foundation

/// Streams method calls with several in flight at once, from a connection
/// and a loop thread of its own, and records how each one ended: the
/// client's side of a fault test ("which calls were answered?").
///
/// Calls are built on demand by index; at most `window` wait for their
/// reply at any moment, optionally paced. `afterSending` runs on the loop
/// thread right after each send, at the exact point of the stream a fault
/// should hit (killing a process there, for instance).
public final class CallStream: @unchecked Sendable {
    /// How one call ended.
    public struct Outcome: Sendable {
        /// The call's index in the stream.
        public var index: Int
        /// The reply's arguments, or the error.
        public var result: Result<[DBusValue], DBusError>
        /// Seconds from the send to the reply or error.
        public var seconds: Double

        public init(index: Int, result: Result<[DBusValue], DBusError>, seconds: Double) {
            self.index = index
            self.result = result
            self.seconds = seconds
        }

        public var reply: [DBusValue]? { try? result.get() }
        public var error: DBusError? {
            if case .failure(let error) = result { return error }
            return nil
        }
    }

    /// What the stream sends.
    public struct Plan: @unchecked Sendable {
        public var count: Int
        public var window: Int
        /// Time between two sends (0: as fast as the window allows).
        public var interval: Double
        public var timeoutMilliseconds: Int32
        public var makeCall: (Int) throws -> DBusMessage
        /// Runs on the loop thread after call `index` was sent; false
        /// ends the stream there.
        public var afterSending: ((Int) -> Bool)?

        public init(
            count: Int, window: Int, interval: Double = 0, timeoutMilliseconds: Int32 = 30_000,
            makeCall: @escaping (Int) throws -> DBusMessage, afterSending: ((Int) -> Bool)? = nil
        ) {
            self.count = count
            self.window = window
            self.interval = interval
            self.timeoutMilliseconds = timeoutMilliseconds
            self.makeCall = makeCall
            self.afterSending = afterSending
        }
    }

    private let thread: LoopThread
    private var connection: DBusConnection?
    private let condition = NSCondition()
    // Loop-thread state.
    private var plan: Plan?
    private var next = 0
    private var inFlight = 0
    private var nextSendTime: UInt64 = 0
    private var timerPending = false
    // Shared state, under `condition`.
    private var stopped = false
    private var sentIndices: [Int] = []
    private var sent: Int { sentIndices.count }
    private var outcomes: [Outcome] = []
    private var sendFailure: String?
    private var total = Int.max

    /// Connects to the bus at `address`.
    public init(address: String) throws {
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            self.connection = connection
        }
    }

    deinit {
        try? thread.sync { self.connection = nil }
        thread.stop()
    }

    /// Starts the stream; returns at once.
    public func start(_ plan: Plan) {
        locked { total = plan.count }
        thread.loop.execute { [self] in
            self.plan = plan
            pump()
        }
    }

    /// Sends nothing more; calls in flight still end (see
    /// ``waitUntilDone(seconds:)``). Safe from any thread.
    public func stopSending() {
        locked { stopped = true }
    }

    /// How many calls were sent so far.
    public var sentCount: Int { locked { sent } }

    /// Waits (bounded) until `count` calls were sent (or the stream stopped or ended).
    public func waitUntilSent(_ count: Int, seconds: Double) throws {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while sent < count && !stopped && sent < total && sendFailure == nil {
            guard condition.wait(until: deadline) else {
                throw TestFailure("only \(sent) of \(count) calls were sent within \(seconds) s")
            }
        }
    }

    /// Waits (bounded) until the stream has nothing more to send and every
    /// call sent has ended; returns the outcomes in the order they ended.
    /// A call still without an outcome at the deadline is a hang: it throws.
    @discardableResult
    public func waitUntilDone(seconds: Double) throws -> [Outcome] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let sendFailure { throw TestFailure("the stream could not send: \(sendFailure)") }
            let finishedSending = stopped || sent >= total
            if finishedSending && outcomes.count == sent { return outcomes }
            guard condition.wait(until: deadline) else {
                throw TestFailure(
                    "after \(seconds) s, \(sent - outcomes.count) of \(sent) calls sent had no reply and no error")
            }
        }
    }

    /// Waits (bounded) like ``waitUntilDone(seconds:)``, but at the
    /// deadline returns what ended so far and the indices of the calls sent
    /// that have not ended, instead of throwing.
    public func waitForOutcomes(seconds: Double) -> (outcomes: [Outcome], unfinished: [Int]) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let finishedSending = stopped || sent >= total
            if (finishedSending && outcomes.count == sent) || !condition.wait(until: deadline) { break }
        }
        let ended = Set(outcomes.map(\.index))
        return (outcomes, sentIndices.filter { !ended.contains($0) })
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body()
    }

    /// Sends while the window allows (on the loop thread).
    private func pump() {
        guard let plan, let connection else { return }
        while inFlight < plan.window && next < plan.count && !locked({ stopped }) {
            if plan.interval > 0 {
                let now = EventLoop.now()
                if now < nextSendTime {
                    if !timerPending {
                        timerPending = true
                        thread.loop.scheduleTimer(atNanoseconds: nextSendTime) { [weak self] in
                            self?.timerPending = false
                            self?.pump()
                        }
                    }
                    return
                }
                nextSendTime = now + UInt64(plan.interval * 1e9)
            }
            let index = next
            next += 1
            let started = Date()
            do {
                let message = try plan.makeCall(index)
                // Weak: a stream released with calls in flight must not be
                // released last on its own loop thread (its deinit waits for that thread).
                try connection.callAsync(message, timeoutMilliseconds: plan.timeoutMilliseconds) { [weak self] result in
                    guard let self else { return }
                    let arguments = result.flatMap { reply in Result { () throws(DBusError) in try reply.arguments() } }
                    let ended = Outcome(index: index, result: arguments, seconds: Date().timeIntervalSince(started))
                    inFlight -= 1
                    locked { outcomes.append(ended) }
                    pump()
                }
            } catch {
                locked {
                    stopped = true
                    sendFailure = "call \(index): \(error)"
                }
                return
            }
            inFlight += 1
            locked { sentIndices.append(index) }
            if plan.afterSending?(index) == false { stopSending() }
        }
    }
}
