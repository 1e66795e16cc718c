/// A value that belongs to one ``EventLoop``'s thread, made `Sendable` so
/// other threads can hand work back to it (as SwiftNIO's `NIOLoopBound`).
///
/// The value is only reachable on the loop's thread: ``value`` checks it,
/// and ``execute(_:)`` runs the body there. That is what makes the
/// `@unchecked Sendable` sound.
public struct LoopBound<Value>: @unchecked Sendable {
    /// The loop whose thread owns the value.
    public let loop: EventLoop
    private let storage: Value

    /// Binds a value; call on the loop's thread.
    public init(_ value: Value, loop: EventLoop) {
        precondition(loop.inLoopThread, "LoopBound created off its loop's thread")
        self.loop = loop
        self.storage = value
    }

    /// The value; only on the loop's thread.
    public var value: Value {
        precondition(loop.inLoopThread, "LoopBound value read off its loop's thread")
        return storage
    }

    /// Runs `body` with the value on the loop's thread. Safe from any thread.
    public func execute(_ body: @escaping @Sendable (Value) -> Void) {
        let bound = self
        loop.execute { body(bound.storage) }
    }
}
