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

    /// In a process of its own: in the test process, other tests leave free
    /// blocks in the heap that a large request may reuse whatever the
    /// threshold (glibc maps a block only when the heap has no room).
    @Test func largeBlocksAreMappedEvenAfterALargerOneWasFreed() async {
        await #expect(processExitsWith: .success) {
            exit(AllocatorPolicyTests.mapsLargeBlocksAfterALargerOneWasFreed() ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    /// Frees a mapped 4 MB block (by default this raises glibc's mmap
    /// threshold to 4 MB: every later block under that would come from the
    /// heap), applies the policy, and looks whether a 256 KB block is mapped
    /// on its own and a 32 KB one is not.
    static func mapsLargeBlocksAfterALargerOneWasFreed() -> Bool {
        guard let large = malloc(4 << 20) else { return false }
        memset(large, 1, 4 << 20)
        free(large)
        guard AllocatorPolicy.apply(environment: [:]) == AllocatorPolicy.Setting.allCases else { return false }
        let requested = 256 * 1024
        let smallSize = Int(AllocatorPolicy.mappedBlockBytes) / 4
        guard let block = malloc(requested), let small = malloc(smallSize) else { return false }
        defer {
            free(block)
            free(small)
        }
        return isMappedOnItsOwn(block, requested: requested) && !isMappedOnItsOwn(small, requested: smallSize)
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
