/// A small, fast, seeded pseudo-random generator (SplitMix64, Steele,
/// Lea and Flood 2014): the same seed always gives the same sequence, on
/// every machine, so a failing case can be replayed from its seed and index.
///
/// Each case gets a generator of its own, derived from the run's seed and
/// the case's index (``init(seed:stream:)``), so what a case contains does
/// not depend on which thread sends it or in what order.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// The generator of one case: the seed and the case index hashed
    /// together, so that no two cases' sequences overlap (plain SplitMix64
    /// states a multiple of its increment apart would be shifted copies).
    public init(seed: UInt64, stream: UInt64) {
        state = Self.mix(Self.mix(seed ^ 0x6A09_E667_F3BC_C909) ^ Self.mix(stream &+ 0xBB67_AE85_84CA_A73B))
    }

    /// The SplitMix64 output function, a good 64-bit hash.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < p
    }

    /// One element of a non-empty collection.
    public mutating func pick<C: Collection>(_ items: C) -> C.Element {
        items.randomElement(using: &self)!
    }

    /// An index chosen with the given weights (all non-negative, sum > 0).
    public mutating func weighted(_ weights: [Int]) -> Int {
        var roll = int(0...(weights.reduce(0, +) - 1))
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

    /// A size skewed towards small values: most draws are near `range`'s
    /// start, a few reach its end.
    public mutating func skewed(_ range: ClosedRange<Int>) -> Int {
        let span = Double(range.upperBound - range.lowerBound)
        let u = Double(next() >> 11) / Double(1 << 53)
        return range.lowerBound + Int(span * u * u * u)
    }
}
