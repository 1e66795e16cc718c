import NotifyCore
import Testing

/// The rule for senders that left before they could be identified.
@Suite struct SandboxActivityTests {
    let sandboxed = try! AppID("org.example.Sandboxed")
    let victim = try! AppID("org.example.Victim")
    let second: Microseconds = 1_000_000

    @Test func withNoSandboxActiveADepartedSenderIsTakenAsTheHost() {
        let activity = SandboxActivity()
        #expect(activity.suspicion(ofDepartedSenderActingFor: victim, at: 100 * second) == nil)
    }

    @Test func anActiveSandboxMakesDepartedSendersForOtherAppsSuspect() throws {
        var activity = SandboxActivity()
        activity.noteSandboxed(sandboxed, at: 100 * second)
        let suspicion = try #require(activity.suspicion(ofDepartedSenderActingFor: victim, at: 112 * second))
        #expect(suspicion.contains("org.example.Sandboxed") && suspicion.contains("12 s ago"))
        // The sandboxed app's own events are not suspect: either it sent them or the host did.
        #expect(activity.suspicion(ofDepartedSenderActingFor: sandboxed, at: 112 * second) == nil)
    }

    @Test func theWindowEndsThirtySecondsAfterTheSandboxWasLastSeen() {
        var activity = SandboxActivity()
        activity.noteSandboxed(sandboxed, at: 100 * second)
        activity.noteSandboxed(sandboxed, at: 120 * second)  // it acted again
        #expect(activity.suspicion(ofDepartedSenderActingFor: victim, at: 149 * second) != nil)
        #expect(activity.suspicion(ofDepartedSenderActingFor: victim, at: 150 * second) == nil)
    }

    @Test func aSandboxWithNoValidAppIDIsSuspectForEveryApp() throws {
        var activity = SandboxActivity()
        activity.noteSandboxed(nil, at: 0)
        let suspicion = try #require(activity.suspicion(ofDepartedSenderActingFor: sandboxed, at: second))
        #expect(suspicion.contains("no valid app ID"))
    }

    @Test func theSetIsBoundedKeepingTheNewest() throws {
        var activity = SandboxActivity()
        for index in 0..<(SandboxActivity.capacity + 50) {
            activity.noteSandboxed(try AppID("org.example.App\(index)"), at: Microseconds(index))
        }
        // The newest is still known and suspect for others.
        let suspicion = try #require(activity.suspicion(ofDepartedSenderActingFor: victim, at: 1_000))
        #expect(suspicion.contains("org.example.App\(SandboxActivity.capacity + 49)"))
    }
}
