import DBus
import Foundation
import Synchronization
import Testing
import NotifyTesting

/// Opening a connection without blocking the loop, and a loop on a thread
/// of its own.
@Suite struct ConnectionOpeningTests {
    @Test func aConnectionOpenedOnALoopThreadIsRegisteredAndWorks() throws {
        let bus = try TestBus()
        let thread = try EventLoopThread(name: "test-open")
        defer { thread.stop() }
        let outcome = Mutex<Result<String, DBusError>?>(nil)
        let opened = DispatchSemaphore(value: 0)
        let address = bus.address
        thread.loop.execute {
            do {
                try DBusConnection.open(to: .address(address), on: thread.loop) { result in
                    // Use it on its loop: a call to the bus itself.
                    var answer: Result<String, DBusError>
                    switch result {
                    case .success(let connection):
                        let name = connection.uniqueName ?? ""
                        do throws(DBusError) {
                            let owner: String = try connection.callBus("GetNameOwner", [.string(name)]).decode(0)
                            answer = .success(owner == name ? name : "owner \(owner) is not \(name)")
                        } catch {
                            answer = .failure(error)
                        }
                    case .failure(let error):
                        answer = .failure(error)
                    }
                    outcome.withLock { $0 = answer }
                    opened.signal()
                }
            } catch let error as DBusError {
                outcome.withLock { $0 = .failure(error) }
                opened.signal()
            } catch {
                opened.signal()
            }
        }
        #expect(opened.wait(timeout: .now() + 10) == .success)
        let name = try #require(outcome.withLock { $0 }).get()
        #expect(name.hasPrefix(":"))
    }

    @Test func openingABusThatIsNotThereFailsAtOnce() throws {
        let thread = try EventLoopThread(name: "test-nobus")
        defer { thread.stop() }
        let failed = Mutex<DBusError?>(nil)
        let done = DispatchSemaphore(value: 0)
        thread.loop.execute {
            do {
                try DBusConnection.open(to: .address("unix:path=/nonexistent/bus"), on: thread.loop) { _ in }
            } catch let error as DBusError {
                failed.withLock { $0 = error }
            } catch {}
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(failed.withLock { $0 } != nil)
    }

    @Test func aStoppedLoopThreadEndsAndStopIsIdempotent() throws {
        let thread = try EventLoopThread(name: "test-stop")
        let ran = DispatchSemaphore(value: 0)
        thread.loop.execute { ran.signal() }
        #expect(ran.wait(timeout: .now() + 5) == .success)
        thread.stop()
        thread.stop()
    }
}
