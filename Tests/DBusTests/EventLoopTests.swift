import DBus
import Foundation
import Glibc
import Synchronization
import Testing

/// The event loop on a thread of the test's own: timers on elapsed time,
/// descriptors, posted work, interrupted waits, and idleness.
@Suite struct EventLoopTests {
    /// Runs a new loop on a Foundation thread (signals not blocked, unlike
    /// ``EventLoopThread``), hands it to `body` through ``EventLoop/execute(_:)``
    /// and returns when `body` calls `done`.
    final class Harness: Sendable {
        /// What the loop's thread hands back.
        private final class Started: Sendable {
            let loop = Mutex<EventLoop?>(nil)
            let thread = Mutex<pthread_t?>(nil)
        }

        let loop: EventLoop
        /// The loop's thread, to signal it.
        let thread: pthread_t
        private let finished = DispatchSemaphore(value: 0)

        init() throws {
            let created = DispatchSemaphore(value: 0)
            let started = Started()
            let finished = self.finished
            Thread {
                // Worker threads of the test runner block most signals; this one takes SIGUSR2.
                var usr2 = sigset_t()
                sigemptyset(&usr2)
                sigaddset(&usr2, SIGUSR2)
                pthread_sigmask(SIG_UNBLOCK, &usr2, nil)
                guard let loop = try? EventLoop() else {
                    created.signal()
                    return
                }
                started.loop.withLock { $0 = loop }
                started.thread.withLock { $0 = pthread_self() }
                created.signal()
                loop.run()
                finished.signal()
            }.start()
            created.wait()
            guard let loop = started.loop.withLock({ $0 }), let thread = started.thread.withLock({ $0 }) else {
                throw DBusError(DBusError.Name.failed, "no loop")
            }
            self.loop = loop
            self.thread = thread
        }

        func stop() {
            loop.stop()
            finished.wait()
        }

        /// Runs `body` on the loop thread and waits (bounded) for it.
        func onLoop<T: Sendable>(_ body: @escaping @Sendable (EventLoop) -> T) -> T? {
            let result = Mutex<T?>(nil)
            let done = DispatchSemaphore(value: 0)
            loop.execute { [loop] in
                result.withLock { $0 = body(loop) }
                done.signal()
            }
            guard done.wait(timeout: .now() + 10) == .success else { return nil }
            return result.withLock { $0 }
        }
    }

    @Test func theClockCountsTimeAsleep() {
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let bootNanoseconds = UInt64(boot.tv_sec) * 1_000_000_000 + UInt64(boot.tv_nsec)
        let now = EventLoop.now()
        #expect(now >= bootNanoseconds && now - bootNanoseconds < 1_000_000_000, "EventLoop.now() is CLOCK_BOOTTIME")
    }

    @Test func timersFireInOrderAndCancelledOnesNever() throws {
        let harness = try Harness()
        defer { harness.stop() }
        let fired = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        _ = harness.onLoop { loop in
            loop.scheduleTimer(afterNanoseconds: 30_000_000) { fired.withLock { $0.append("30 ms") } }
            let cancelled = loop.scheduleTimer(afterNanoseconds: 20_000_000) { fired.withLock { $0.append("cancelled") } }
            loop.scheduleTimer(afterNanoseconds: 10_000_000) { fired.withLock { $0.append("10 ms") } }
            loop.scheduleTimer(afterNanoseconds: 60_000_000) { done.signal() }
            loop.cancelTimer(cancelled)
            return true
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(fired.withLock { $0 } == ["10 ms", "30 ms"])
        #expect(harness.onLoop { $0.pendingTimers } == 0)
    }

    @Test func aReadableDescriptorRunsItsHandler() throws {
        let harness = try Harness()
        defer { harness.stop() }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { fds.forEach { close($0) } }
        let received = DispatchSemaphore(value: 0)
        let readFD = fds[0]
        let id = try #require(harness.onLoop { loop in
            try? loop.addDescriptor(readFD, events: .readable) { events in
                var byte: UInt8 = 0
                if events.contains(.readable), read(readFD, &byte, 1) == 1 { received.signal() }
            }
        } ?? nil)
        var byte: UInt8 = 7
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(received.wait(timeout: .now() + 10) == .success)
        _ = harness.onLoop { $0.removeDescriptor(id) }
    }

    /// Every system call goes through one funnel: epoll's refusal is an
    /// error naming the call, and nothing is registered.
    @Test func aDescriptorEpollRefusesIsAnErrorAndTheLoopGoesOn() throws {
        let harness = try Harness()
        defer { harness.stop() }
        let message = harness.onLoop { loop -> String? in
            do throws(DBusError) {
                _ = try loop.addDescriptor(-1, events: .readable) { _ in }
                return nil
            } catch {
                return error.message
            }
        }
        let text = try #require(message ?? nil)
        #expect(text.contains("epoll_ctl") && text.contains("Bad file descriptor"), "\(text)")
        #expect(harness.onLoop { _ in true } == true, "the loop still runs")
    }

    /// A signal that interrupts `epoll_wait` (EINTR) is retried: the loop
    /// neither stops nor spins, and its timers still fire.
    @Test func anInterruptedWaitIsRetried() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = 0  // no SA_RESTART: epoll_wait fails with EINTR
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }
        let harness = try Harness()
        defer { harness.stop() }
        let fired = DispatchSemaphore(value: 0)
        _ = harness.onLoop { loop in loop.scheduleTimer(afterNanoseconds: 200_000_000) { fired.signal() } }
        for _ in 0..<20 { pthread_kill(harness.thread, SIGUSR2) }
        #expect(fired.wait(timeout: .now() + 10) == .success)
        #expect(harness.onLoop { $0.failure == nil } == true)
    }

    /// Idle means idle: with no timer pending the loop sleeps without a
    /// timeout, and one posted piece of work wakes it once.
    @Test func anIdleLoopDoesNotWakeUp() throws {
        let harness = try Harness()
        defer { harness.stop() }
        let turns = Atomic<Int>(0)
        _ = harness.onLoop { loop in loop.addBeforeSleepObserver { turns.add(1, ordering: .relaxed) } }
        // Read on the loop thread: after this work, the observers run once
        // more, and once again after the wake-up descriptor is drained.
        let before = try #require(harness.onLoop { _ in turns.load(ordering: .relaxed) })
        // A window to observe the absence of wake-ups: nothing else can show it.
        Thread.sleep(forTimeInterval: 0.3)
        let after = try #require(harness.onLoop { _ in turns.load(ordering: .relaxed) })
        #expect(after - before <= 2, "\(after - before) turns of an idle loop in 0.3 s")
    }
}
