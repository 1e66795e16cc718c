import HeapModule

/// Timers of an ``EventLoop``, ordered by deadline (then by the order they
/// were scheduled) in a heap.
///
/// Cancelled timers are dropped lazily when they reach the top, and the heap
/// is rebuilt when they outnumber the live ones, so frequent add/cancel
/// (libdbus toggles call timeouts all the time) stays cheap.
struct TimerQueue {
    typealias ID = EventLoop.TimerID

    private struct Entry: Comparable {
        var deadline: UInt64
        var id: ID

        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.deadline, lhs.id.value) < (rhs.deadline, rhs.id.value) }
    }

    private var heap = Heap<Entry>()
    private var handlers: [ID: () -> Void] = [:]
    private var nextID: UInt64 = 1

    /// Number of live timers.
    var count: Int { handlers.count }

    /// Entries in the heap, cancelled ones not yet dropped included.
    var storedCount: Int { heap.count }

    mutating func schedule(at deadline: UInt64, _ handler: @escaping () -> Void) -> ID {
        let id = ID(value: nextID)
        nextID += 1
        handlers[id] = handler
        heap.insert(Entry(deadline: deadline, id: id))
        return id
    }

    mutating func cancel(_ id: ID) {
        handlers[id] = nil
        if heap.count > 64 && heap.count > 2 * handlers.count {
            heap = Heap(heap.unordered.filter { handlers[$0.id] != nil })
        }
    }

    /// The earliest live deadline, if any.
    mutating func nextDeadline() -> UInt64? {
        dropCancelledTop()
        return heap.min?.deadline
    }

    /// Removes and returns the handler of the earliest timer due at `now`.
    mutating func popDue(now: UInt64) -> (() -> Void)? {
        dropCancelledTop()
        guard let top = heap.min, top.deadline <= now else { return nil }
        heap.removeMin()
        return handlers.removeValue(forKey: top.id)
    }

    private mutating func dropCancelledTop() {
        while let top = heap.min, handlers[top.id] == nil { heap.removeMin() }
    }
}
