import Glibc

/// What glibc's allocator may keep, set once at startup: large blocks are
/// mapped on their own and given back when freed, and the heap is shared
/// by at most two arenas.
///
/// By default glibc raises its mmap threshold to the size of the largest
/// mapped block freed so far, so after the first large reply
/// (`ListSessions`, a batch of rows) every later one comes from the heap,
/// whose top then grows and shrinks by hundreds of kilobytes with each:
/// resident memory jumped by 400 to 500 kB between two readings with
/// nothing more held. And every thread that meets a locked arena gets one
/// of its own (up to 8 per core), each keeping free pages between its live
/// blocks: over a soak resident memory crept up for ten minutes while the
/// live heap stayed level. notifyd's threads (the bus loop, the committer,
/// GLib's) allocate little and rarely at once, so two arenas cost nothing
/// measurable (docs/PERFORMANCE.md, "Soak").
public enum AllocatorPolicy {
    /// The size, in bytes, from which a block is mapped on its own (and
    /// the free space at the heap's top that is given back): glibc's
    /// starting value, kept fixed.
    public static let mappedBlockBytes: Int32 = 128 * 1024
    /// Arenas the threads share.
    public static let arenas: Int32 = 2

    /// Sets the thresholds and the arenas, except each one whose variable
    /// (`MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`,
    /// `MALLOC_ARENA_MAX`) the user set to a value that is not empty; none
    /// when `GLIBC_TUNABLES` is set. Returns the settings made; empty where
    /// `mallopt` is missing or refused them.
    @discardableResult
    public static func apply(environment: [String: String]) -> [Setting] {
        func isSet(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        guard !isSet("GLIBC_TUNABLES"), let mallopt = mallocOption else { return [] }
        return Setting.allCases.filter { setting in
            !isSet(setting.environmentName) && mallopt(setting.option, setting.value) == 1
        }
    }

    /// A setting of `mallopt`, with the option of `<malloc.h>` and the
    /// environment variable that sets it instead.
    public enum Setting: Sendable, CaseIterable {
        case trimThreshold, mmapThreshold, arenaMax

        var option: Int32 {
            switch self {
            case .trimThreshold: -1  // M_TRIM_THRESHOLD
            case .mmapThreshold: -3  // M_MMAP_THRESHOLD
            case .arenaMax: -8  // M_ARENA_MAX
            }
        }

        /// What notifyd sets it to.
        var value: Int32 {
            switch self {
            case .trimThreshold, .mmapThreshold: AllocatorPolicy.mappedBlockBytes
            case .arenaMax: AllocatorPolicy.arenas
            }
        }

        /// The variable glibc reads for the same setting.
        public var environmentName: String {
            switch self {
            case .trimThreshold: "MALLOC_TRIM_THRESHOLD_"
            case .mmapThreshold: "MALLOC_MMAP_THRESHOLD_"
            case .arenaMax: "MALLOC_ARENA_MAX"
            }
        }
    }

    private typealias OptionFunction = @convention(c) (Int32, Int32) -> Int32

    /// `mallopt`, looked up at run time: Swift's Glibc module does not
    /// export `<malloc.h>`.
    private static let mallocOption: OptionFunction? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: OptionFunction.self)
    }()
}
