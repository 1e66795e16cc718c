import NotifyCore
import Testing

/// The sessions' table: a dictionary in shards that copies share, with a
/// dictionary's answers.
@Suite struct ShardedDictionaryTests {
    @Test func answersAsADictionaryDoes() {
        var sharded: ShardedDictionary<String, Int> = [:]
        var plain: [String: Int] = [:]
        var random = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let key = "key-\(Int.random(in: 0..<3_000, using: &random))"
            if step % 3 == 0 {
                sharded[key] = nil
                plain[key] = nil
            } else {
                sharded[key, default: 0] += step
                plain[key, default: 0] += step
            }
        }
        #expect(sharded.count == plain.count)
        #expect(Dictionary(uniqueKeysWithValues: sharded.map { ($0.key, $0.value) }) == plain)
        #expect(Set(sharded.keys) == Set(plain.keys))
        #expect(sharded.values.reduce(0, +) == plain.values.reduce(0, +))
        for (key, value) in plain { #expect(sharded[key] == value) }
    }

    @Test func aCopyKeepsItsValuesWhenTheOriginalChanges() {
        var original: ShardedDictionary<Int, [Int]> = [:]
        for key in 0..<10_000 { original[key] = [key] }
        let copy = original
        original[7]?.append(8)
        original[8] = nil
        original[10_000] = []
        #expect(copy[7] == [7] && copy[8] == [8] && copy[10_000] == nil && copy.count == 10_000)
        #expect(original[7] == [7, 8] && original[8] == nil && original.count == 10_000)
        #expect(copy != original)
    }

    @Test func aClearedTableGivesItsRoomBackAndStillCounts() {
        var table: ShardedDictionary<Int, String> = [:]
        for key in 0..<100_000 { table[key] = "value \(key)" }
        let grown = table.capacity
        for key in 10..<50_000 { table[key] = nil }
        #expect(table.capacity == grown, "setting nil keeps the buckets")
        for key in 50_000..<100_000 { table.removeValue(forKey: key) }
        #expect(table.capacity < grown / 2, "removeValue gives them back: \(table.capacity) of \(grown)")
        for key in 10..<20 { table.removeValue(forKey: key) }
        for key in 0..<10 { table.removeValue(forKey: key) }
        #expect(table.isEmpty)
        for key in 0..<10 { table[key] = "value \(key)" }
        #expect(table.capacity < grown / 20, "\(table.capacity) of \(grown)")
        #expect(table.count == 10)
        #expect(!table.isEmpty)
        #expect(table.keys.sorted() == Array(0..<10))
        var empty = ShardedDictionary<Int, String>()
        #expect(empty.isEmpty && empty.count == 0)
        #expect(empty.removeValue(forKey: 1) == nil)
        #expect(empty == [:])
    }
}
