import Testing

@testable import NotifyCore

@Suite struct MinHeapTests {
    @Test func popsInOrder() {
        var generator = SystemRandomNumberGenerator()
        let values = (0..<500).map { _ in Int.random(in: -50...50, using: &generator) }
        var pushed = MinHeap<Int>()
        for value in values { pushed.push(value) }
        var built = MinHeap(values)
        var fromPushes: [Int] = []
        var fromBuild: [Int] = []
        while let value = pushed.popFirst() { fromPushes.append(value) }
        while let value = built.popFirst() { fromBuild.append(value) }
        #expect(fromPushes == values.sorted())
        #expect(fromBuild == values.sorted())
        #expect(pushed.isEmpty && pushed.first == nil)
    }
}
