import Synchronization

/// A flag the main thread raises to stop threads that poll it (a class:
/// `Atomic` cannot be captured by the threads' closures).
final class StopFlag: Sendable {
    private let raised = Atomic(false)

    func raise() { raised.store(true, ordering: .relaxed) }

    var isRaised: Bool { raised.load(ordering: .relaxed) }
}

/// A value shared between threads, read and changed under a lock (a class:
/// `Mutex` cannot be captured by the threads' closures).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}
