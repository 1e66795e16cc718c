import Foundation
import Synchronization
import Testing

@testable import NotifyDesktop

/// Canberra needs an audio device, which test machines often lack: a named
/// sound may be played or refused, but the completion always comes and
/// nothing crashes.
@Suite struct SoundPlayerTests {
    /// Plays `sound` and waits (bounded) for the completion.
    private func outcome(of sound: SoundHint, on player: SoundPlayer) -> SoundOutcome? {
        let result = Mutex<SoundOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        player.play(sound) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else { return nil }
        return result.withLock { $0 }
    }

    @Test func aNamedSoundCompletesPlayedOrFailed() throws {
        let player = SoundPlayer(logger: DesktopFixture.logger)
        defer { player.shutDown() }
        let first = try #require(outcome(of: .name("complete-download"), on: player))
        if case .failed(let message) = first { #expect(!message.isEmpty) }
        // The context stays usable after a refusal.
        #expect(outcome(of: .name("dialog-error"), on: player) != nil)
    }

    @Test func aMissingFileFails() throws {
        let player = SoundPlayer(logger: DesktopFixture.logger)
        defer { player.shutDown() }
        let result = try #require(outcome(of: .file("/nonexistent/notifyd-test.oga"), on: player))
        #expect(result != .played)
    }

    @Test func suppressedSoundsPlayNothing() {
        let player = SoundPlayer(logger: DesktopFixture.logger)
        defer { player.shutDown() }
        #expect(outcome(of: .suppress, on: player) == .played)
        #expect(outcome(of: .name(""), on: player) == .played)
    }

    @Test func afterShutDownSoundsFail() {
        let player = SoundPlayer(logger: DesktopFixture.logger)
        #expect(outcome(of: .name("bell"), on: player) != nil)
        player.shutDown()
        player.shutDown()
        #expect(outcome(of: .name("bell"), on: player) == .failed("the sound player is shut down"))
        // Never started at all: shutting down is still fine.
        SoundPlayer(logger: DesktopFixture.logger).shutDown()
    }
}
