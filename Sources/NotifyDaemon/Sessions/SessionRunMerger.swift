import NotifyCore

/// Merges sorted runs of listing rows, one row at a time: the rows of
/// ``SessionListing`` are sorted in runs (a run per piece of work), and
/// this yields their indices in session-ID order as the reply is written.
///
/// A binary heap of the runs, keyed by each run's next row: a row costs
/// about log2(runs) comparisons (5 for 100,000 rows in runs of 4,096), and
/// the merger holds two integers per run, not a copy of the rows. Session
/// IDs are unique, so the order is total and the same as sorting all rows
/// at once.
struct SessionRunMerger {
    /// The next row of each run, and where each run ends.
    private var next: [Int]
    private var ends: [Int]
    /// Runs that still have rows, as a min-heap on their next row.
    private var heap: [Int]

    /// Runs of `runLength` positions out of `count` (the last may be
    /// shorter), each sorted by `precedes` (which compares two positions).
    init(count: Int, runLength: Int, precedes: (Int, Int) -> Bool) {
        let starts = Array(stride(from: 0, to: count, by: max(1, runLength)))
        next = starts
        ends = starts.map { min($0 + runLength, count) }
        heap = []
        heap.reserveCapacity(starts.count)
        for run in starts.indices { push(run, precedes) }
    }

    /// Runs of `rows` themselves, each sorted by session ID.
    init(rows: [SessionListingRow], runLength: Int) {
        self.init(count: rows.count, runLength: runLength) { rows[$0].record.id < rows[$1].record.id }
    }

    /// The next position in order, or nil when every run is done.
    mutating func next(_ precedes: (Int, Int) -> Bool) -> Int? {
        guard let run = heap.first else { return nil }
        let index = next[run]
        next[run] = index + 1
        if next[run] < ends[run] {
            siftDown(from: 0, precedes)
        } else {
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
            if !heap.isEmpty { siftDown(from: 0, precedes) }
        }
        return index
    }

    /// The index of the next row of `rows` in session-ID order.
    mutating func next(_ rows: [SessionListingRow]) -> Int? {
        next { rows[$0].record.id < rows[$1].record.id }
    }

    private func runPrecedes(_ a: Int, _ b: Int, _ precedes: (Int, Int) -> Bool) -> Bool {
        precedes(next[a], next[b])
    }

    private mutating func push(_ run: Int, _ precedes: (Int, Int) -> Bool) {
        heap.append(run)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard runPrecedes(heap[child], heap[parent], precedes) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int, _ precedes: (Int, Int) -> Bool) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var least = parent
            if left < heap.count && runPrecedes(heap[left], heap[least], precedes) { least = left }
            if right < heap.count && runPrecedes(heap[right], heap[least], precedes) { least = right }
            guard least != parent else { return }
            heap.swapAt(parent, least)
            parent = least
        }
    }
}
