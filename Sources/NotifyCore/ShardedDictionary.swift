/// A dictionary kept in ``shardCount`` smaller dictionaries, chosen by the
/// key's hash, so that a copy shares all but what it changes.
///
/// The daemon keeps the state twice: as decided and as last committed
/// (`Committer`). Both are values sharing storage until one changes; with
/// one `Dictionary` of 100,000 sessions, the first change after each commit
/// copied the whole table (about 3 ms a batch in a release build, far more
/// in a debug one). Here a change copies the array of shards (256
/// references) and the shards it touches (about 400 entries each at
/// 100,000), whatever the table's size.
///
/// Lookups cost one hash more than a `Dictionary`'s; the order of
/// iteration is unspecified, as a dictionary's is.
public struct ShardedDictionary<Key: Hashable, Value> {
    /// How many dictionaries the entries are spread over.
    public static var shardCount: Int { 256 }

    private var shards: [[Key: Value]]

    /// An empty dictionary.
    public init() {
        shards = Array(repeating: [:], count: Self.shardCount)
    }

    private func shard(of key: Key) -> Int {
        Int(UInt(bitPattern: key.hashValue) % UInt(Self.shardCount))
    }

    /// The value of `key`; setting `nil` removes it. Changes in place.
    public subscript(key: Key) -> Value? {
        get { shards[shard(of: key)][key] }
        _modify { yield &shards[shard(of: key)][key] }
        set { shards[shard(of: key)][key] = newValue }
    }

    /// The value of `key`, or `defaultValue` where there is none; changes in place.
    public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { shards[shard(of: key)][key] ?? defaultValue() }
        _modify { yield &shards[shard(of: key)][key, default: defaultValue()] }
    }

    /// How many entries there are (a sum over the shards).
    public var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// The entries the shards have room for without growing.
    public var capacity: Int { shards.reduce(0) { $0 + $1.capacity } }

    /// Whether there is no entry.
    public var isEmpty: Bool { shards.allSatisfy(\.isEmpty) }

    /// The keys, in no particular order.
    public var keys: some Sequence<Key> { shards.lazy.flatMap(\.keys) }

    /// The values, in no particular order.
    public var values: some Sequence<Value> { shards.lazy.flatMap(\.values) }

    /// Shards of at least this many buckets give their room back once a
    /// quarter full: the whole table's floor (``sparseShrinkFloor``) spread
    /// over the shards.
    public static var shardShrinkFloor: Int { Swift.max(16, sparseShrinkFloor / shardCount) }

    /// Removes the value of `key`, and gives back the room of its shard
    /// once that is a quarter full (``Swift/Dictionary/shrinkIfSparse(floor:)``):
    /// a table cleared of 100,000 entries comes back to a few kilobytes,
    /// and no removal looks at more than one shard.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        let index = shard(of: key)
        let removed = shards[index].removeValue(forKey: key)
        if removed != nil { shards[index].shrinkIfSparse(floor: Self.shardShrinkFloor) }
        return removed
    }
}

extension ShardedDictionary: Sequence {
    public func makeIterator() -> FlattenSequence<[[Key: Value]]>.Iterator {
        shards.joined().makeIterator()
    }
}

extension ShardedDictionary: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (Key, Value)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }
}

extension ShardedDictionary: Equatable where Value: Equatable {}

extension ShardedDictionary: Sendable where Key: Sendable, Value: Sendable {}
