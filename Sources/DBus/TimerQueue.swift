/// Timers of an ``EventLoop``, ordered by deadline in a binary heap.
///
/// Cancelled timers are dropped lazily when they reach the top, and the heap
/// is rebuilt when they outnumber the live ones, so frequent add/cancel
/// (libdbus toggles call timeouts all the time) stays cheap.
struct TimerQueue {
    typealias ID = EventLoop.TimerID

    private struct Entry {
        var deadline: UInt64
        var id: ID
    }

    private var heap: [Entry] = []
    private var handlers: [ID: () -> Void] = [:]
    private var nextID: UInt64 = 1

    /// Number of live timers.
    var count: Int { handlers.count }

    mutating func schedule(at deadline: UInt64, _ handler: @escaping () -> Void) -> ID {
        let id = ID(value: nextID)
        nextID += 1
        handlers[id] = handler
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: ID) {
        handlers[id] = nil
        if heap.count > 64 && heap.count > 2 * handlers.count { rebuild() }
    }

    /// The earliest live deadline, if any.
    mutating func nextDeadline() -> UInt64? {
        dropCancelledTop()
        return heap.first?.deadline
    }

    /// Removes and returns the handler of the earliest timer due at `now`.
    mutating func popDue(now: UInt64) -> (() -> Void)? {
        dropCancelledTop()
        guard let top = heap.first, top.deadline <= now else { return nil }
        removeTop()
        return handlers.removeValue(forKey: top.id)
    }

    private mutating func dropCancelledTop() {
        while let top = heap.first, handlers[top.id] == nil { removeTop() }
    }

    private mutating func rebuild() {
        heap.removeAll { handlers[$0.id] == nil }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func removeTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
