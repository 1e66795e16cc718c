/// Giving back the room of a table that has emptied.
///
/// A Swift dictionary or set keeps the capacity it grew to: after 10,000
/// badged apps are cleared, the empty table still holds buckets for
/// 10,000, and a table of 100,000 sessions holds about 20 MB. The books
/// that can grow to a documented limit and be cleared by clients call
/// `shrinkIfSparse()` after a removal, so memory comes back once the state
/// is cleared (docs/PERFORMANCE.md, "Memory at the limits").
///
/// Amortised O(1) per removal: a table is copied into one of the size it
/// needs only once it is a quarter full, so a copy of n entries follows at
/// least 3n removals; tables below ``sparseShrinkFloor`` buckets are left
/// as they are (a few kilobytes, and small tables go up and down all day).
public let sparseShrinkFloor = 4_096

extension Dictionary {
    /// Copies the dictionary into one of the capacity it needs once it is
    /// a quarter full and has at least `floor` buckets (by default
    /// ``sparseShrinkFloor``).
    public mutating func shrinkIfSparse(floor: Int = sparseShrinkFloor) {
        guard capacity >= floor, count * 4 < capacity else { return }
        var shrunk = Dictionary(minimumCapacity: count)
        for (key, value) in self { shrunk[key] = value }
        self = shrunk
    }
}

extension Set {
    /// Copies the set into one of the capacity it needs once it is a
    /// quarter full and has at least ``sparseShrinkFloor`` buckets.
    public mutating func shrinkIfSparse() {
        guard capacity >= sparseShrinkFloor, count * 4 < capacity else { return }
        var shrunk = Set(minimumCapacity: count)
        for member in self { shrunk.insert(member) }
        self = shrunk
    }
}
