import Glibc
import Testing

@testable import NotifyDaemon

/// The allocator's settings notifyd makes at startup: a large block freed
/// is given back to the kernel, not kept in the heap for the next; what
/// the user set through the environment is left alone.
@Suite(.serialized) struct AllocatorPolicyTests {
    /// Whether `pointer` is a block glibc mapped on its own: such a block
    /// starts 16 bytes into a page and has a whole number of pages, less
    /// its 16-byte header, to use (a block of the heap is never both).
    static func isMappedOnItsOwn(_ pointer: UnsafeMutableRawPointer, requested: Int) -> Bool {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size") else { return false }
        let usable = unsafeBitCast(symbol, to: UsableSize.self)(pointer)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return Int(bitPattern: pointer) % page == 16 && (usable + 16) % page == 0 && usable >= requested
    }

    @Test func largeBlocksAreMappedEvenAfterALargerOneWasFreed() throws {
        // By default, freeing a mapped 4 MB block raises glibc's mmap
        // threshold to 4 MB: every later block under that came from the heap.
        let large = try #require(malloc(4 << 20))
        memset(large, 1, 4 << 20)
        free(large)

        #expect(AllocatorPolicy.apply(environment: [:]) == AllocatorPolicy.Setting.allCases)

        let requested = 256 * 1024
        let block = try #require(malloc(requested))
        defer { free(block) }
        #expect(Self.isMappedOnItsOwn(block, requested: requested))
        let smallSize = Int(AllocatorPolicy.mappedBlockBytes) / 4
        let small = try #require(malloc(smallSize))
        defer { free(small) }
        #expect(!Self.isMappedOnItsOwn(small, requested: smallSize))
    }

    @Test(arguments: AllocatorPolicy.Setting.allCases)
    func aSettingTheUserMadeIsLeftAlone(setting: AllocatorPolicy.Setting) {
        let made = AllocatorPolicy.apply(environment: [setting.environmentName: "4", "HOME": "/home/user"])
        #expect(made == AllocatorPolicy.Setting.allCases.filter { $0 != setting })
    }

    @Test func tunablesLeaveEverySettingToGlibc() {
        #expect(AllocatorPolicy.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=4"]).isEmpty)
    }
}
