import DBus
import NotifyTestingCore

/// One connection of the flood, on a thread of its own: it keeps up to
/// `window` calls in flight (pipelined, answered through `callAsync`),
/// sends signals in between, checks every reply, and ends with a `Ping`
/// round trip, after which notifyd has handled everything it sent.
final class FloodWorker {
    struct Settings: Sendable {
        var address: String
        var window: Int
        var replyTimeoutMilliseconds: Int32
        var notifydUniqueName: String?
    }

    private let settings: Settings
    private let generator: CaseGenerator
    private let source: CaseSource
    private let tally: Tally
    private var loop: EventLoop?
    private var connection: DBusConnection?
    private var inFlight = 0
    private var exhausted = false
    private var finishing = false
    private var refillScheduled = false
    private var hugeCalls: [PosixThread] = []
    /// A message near the bus's size limits takes seconds to cross it
    /// (more under a sanitizer or on a loaded machine); it gets this long.
    static let hugeReplyTimeoutMilliseconds: Int32 = 600_000

    init(settings: Settings, generator: CaseGenerator, source: CaseSource, tally: Tally) {
        self.settings = settings
        self.generator = generator
        self.source = source
        self.tally = tally
    }

    /// Runs the worker to its end on the calling thread.
    static func run(settings: Settings, generator: CaseGenerator, source: CaseSource, tally: Tally) {
        let worker = FloodWorker(settings: settings, generator: generator, source: source, tally: tally)
        do {
            let loop = try EventLoop()
            let connection = try DBusConnection.connect(to: .address(settings.address))
            try connection.attach(to: loop)
            connection.onDisconnect { [weak worker] in worker?.lost() }
            worker.loop = loop
            worker.connection = connection
            worker.fill()
            loop.run()
            for call in worker.hugeCalls { call.join() }
            worker.connection = nil
        } catch {
            tally.sendFailed("a flood connection failed: \(error)")
        }
    }

    /// The bus dropped the connection (it refuses malformed messages that
    /// way): the calls in flight will never be answered.
    private func lost() {
        tally.sendFailed("a flood connection was disconnected by the bus with \(inFlight) calls in flight")
        exhausted = true
        loop?.stop()
    }

    /// Sends cases until the window is full (signals count towards one batch).
    private func fill() {
        refillScheduled = false
        var batch = settings.window
        while !exhausted, inFlight < settings.window, batch > 0 {
            guard let index = source.take() else {
                exhausted = true
                break
            }
            batch -= 1
            send(generator.make(index))
        }
        if exhausted {
            if inFlight == 0 { finish() }
        } else if inFlight < settings.window, !refillScheduled, let loop {
            // Signals filled the batch: let the loop write before sending more.
            refillScheduled = true
            loop.runSoon { [self] in fill() }
        }
    }

    private func send(_ testCase: FuzzCase) {
        guard let connection else { return }
        if testCase.family == .hugeMessage, testCase.kind == .call {
            sendAlone(testCase)
            return
        }
        do {
            let message = try testCase.message(notifydUniqueName: settings.notifydUniqueName)
            tally.sent(testCase)
            switch testCase.kind {
            case .signal:
                try connection.send(message)
            case .call:
                try connection.callAsync(message, timeoutMilliseconds: settings.replyTimeoutMilliseconds) { [self] result in
                    inFlight -= 1
                    let verdict = ReplyCheck.judge(testCase, result)
                    if verdict.answered { tally.replied(testCase, storedHandler: verdict.storedHandler) }
                    if !verdict.matches { tally.mismatch(testCase, got: verdict.got) }
                    if verdict.matches, !testCase.followUps.isEmpty, case .success(let reply) = result,
                        case .uint64(let id)? = (try? reply.arguments())?.first
                    {
                        followUp(testCase, transfer: id, testCase.followUps[...])
                    }
                    answered()
                }
                // Counted once queued: a call that could not be queued gets no answer to wait for.
                inFlight += 1
            }
        } catch {
            tally.sendFailed("#\(testCase.index): cannot send: \(error)")
        }
    }

    /// After an answer: more cases, or the end once none is left in flight.
    private func answered() {
        if exhausted {
            if inFlight == 0 { finish() }
        } else {
            fill()
        }
    }

    /// Calls the first of `members` (of Transfers) with the transfer the
    /// case made, then the rest in turn; each is a call of the case's family.
    private func followUp(_ made: FuzzCase, transfer id: UInt64, _ members: ArraySlice<String>) {
        guard let member = members.first, let connection else { return }
        let testCase = FuzzCase(
            index: made.index, family: made.family, kind: .call, path: Contract.path, interface: Contract.transfers, member: member,
            arguments: [.uint64(id)], expectation: .success(signature: Contract.method(Contract.transfers, member)?.outputSignature ?? "?"),
            note: "transfer \(id) of #\(made.index)")
        do {
            try connection.callAsync(testCase.message(notifydUniqueName: nil), timeoutMilliseconds: settings.replyTimeoutMilliseconds) {
                [self] result in
                inFlight -= 1
                let verdict = ReplyCheck.judge(testCase, result)
                if verdict.answered { tally.replied(testCase) }
                if !verdict.matches { tally.mismatch(testCase, got: verdict.got) }
                if verdict.matches { followUp(made, transfer: id, members.dropFirst()) }
                answered()
            }
            tally.sent(testCase)
            inFlight += 1
        } catch {
            tally.sendFailed("#\(made.index): cannot send \(member): \(error)")
        }
    }

    /// Sends a huge call on a connection and a thread of its own: written
    /// in the pipeline, its minutes on the wire would hold up the calls
    /// queued behind it past their time-out, and the loop would stop
    /// reading replies while libdbus writes it.
    private func sendAlone(_ testCase: FuzzCase) {
        let settings = settings
        let tally = tally
        do {
            let message = try testCase.message(notifydUniqueName: settings.notifydUniqueName)
            tally.sent(testCase)
            let call = message
            let thread = try PosixThread {
                let result: Result<DBusMessage, DBusError>
                do throws(DBusError) {
                    let connection = try DBusConnection.connect(to: .address(settings.address))
                    result = .success(try connection.call(call, timeoutMilliseconds: Self.hugeReplyTimeoutMilliseconds))
                } catch {
                    result = .failure(error)
                }
                let verdict = ReplyCheck.judge(testCase, result)
                if verdict.answered { tally.replied(testCase, storedHandler: verdict.storedHandler) }
                if !verdict.matches { tally.mismatch(testCase, got: verdict.got) }
            }
            hugeCalls.append(thread)
        } catch {
            tally.sendFailed("#\(testCase.index): cannot send: \(error)")
        }
    }

    /// The closing `Ping`: its answer comes after notifyd has handled
    /// every earlier message of this connection, signals included.
    private func finish() {
        guard !finishing, let connection, let loop else { return }
        finishing = true
        do {
            let ping = try DBusMessage.methodCall(
                destination: Contract.busName, path: Contract.path, interface: Contract.peer, member: "Ping")
            try connection.callAsync(ping, timeoutMilliseconds: settings.replyTimeoutMilliseconds) { [tally] result in
                if case .failure(let error) = result { tally.sendFailed("the closing Ping failed: \(error)") }
                loop.stop()
            }
        } catch {
            tally.sendFailed("cannot send the closing Ping: \(error)")
            loop.stop()
        }
    }
}
