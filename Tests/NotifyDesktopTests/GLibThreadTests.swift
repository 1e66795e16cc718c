import Dispatch
import Glibc
import Synchronization
import Testing

@testable import NotifyDesktop

/// The GLib thread on its own: jobs run there, in order, and stop.
@Suite struct GLibThreadTests {
    @Test func jobsRunOnTheThreadInOrder() throws {
        let thread = try GLibThread(name: "test-glib")
        defer { thread.stop() }
        #expect(!thread.isCurrent)
        let order = Mutex<[Int]>([])
        for index in 0..<100 { thread.perform { order.withLock { $0.append(index) } } }
        #expect(thread.sync { thread.isCurrent } == true)
        #expect(order.withLock { $0 } == Array(0..<100))
    }

    @Test func stopRunsTheTeardownLastAndRefusesLaterWork() throws {
        let thread = try GLibThread(name: "test-glib")
        let log = Mutex<[String]>([])
        thread.perform { log.withLock { $0.append("job") } }
        thread.stop { log.withLock { $0.append("teardown") } }
        thread.stop { log.withLock { $0.append("again") } }
        #expect(log.withLock { $0 } == ["job", "teardown"])
        #expect(thread.perform { log.withLock { $0.append("late") } } == false)
        #expect(thread.sync { 1 } == nil)
        #expect(log.withLock { $0 } == ["job", "teardown"])
    }

    @Test func theThreadBlocksAsynchronousSignals() throws {
        // Even when started from a thread that lets SIGTERM through.
        var term = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &term, &previous)
        let thread = try GLibThread(name: "test-glib")
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        defer { thread.stop() }
        let blocked = thread.sync { () -> [Bool] in
            var mask = sigset_t()
            pthread_sigmask(SIG_BLOCK, nil, &mask)
            return [SIGTERM, SIGINT, SIGCHLD, SIGSEGV].map { sigismember(&mask, $0) == 1 }
        }
        #expect(blocked == [true, true, true, false])
    }

    @Test func confinedStateIsReachableOnItsThread() throws {
        final class Counter { var value = 0 }
        let thread = try GLibThread(name: "test-glib")
        defer { thread.stop() }
        let counter = ThreadConfined(Counter(), on: thread)
        for _ in 0..<10 { thread.perform { counter.access { $0.value += 1 } } }
        #expect(thread.sync { counter.access { $0.value } } == 10)
    }
}
