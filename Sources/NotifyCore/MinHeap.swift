/// A binary min-heap: O(log n) push and pop, O(1) access to the least
/// element. Callers that cannot remove from the middle leave stale
/// elements in and skip them when they surface (lazy deletion).
struct MinHeap<Element: Comparable> {
    private(set) var elements: [Element]

    /// A heap of the given elements, built in O(n).
    init(_ elements: [Element] = []) {
        self.elements = elements
        var index = elements.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    var count: Int { elements.count }
    var isEmpty: Bool { elements.isEmpty }
    /// The least element.
    var first: Element? { elements.first }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the least element.
    @discardableResult
    mutating func popFirst() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let least = elements.removeLast()
        siftDown(from: 0)
        return least
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var least = parent
            if left < elements.count, elements[left] < elements[least] { least = left }
            if right < elements.count, elements[right] < elements[least] { least = right }
            guard least != parent else { return }
            elements.swapAt(parent, least)
            parent = least
        }
    }
}

extension MinHeap: Sendable where Element: Sendable {}
