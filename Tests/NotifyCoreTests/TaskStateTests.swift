import NotifyCore
import Testing

/// Finite-length background tasks in the core, with a fake clock: begin and
/// end, the cue 5 s before the deadline, expiry (also after sleep), the
/// abandoned tasks of a connection that left, the limits, the time
/// remaining, clock steps, and when the sleep lock must change.
@Suite struct TaskStateTests {
    static let second: Microseconds = 1_000_000
    let backup = try! AppID("org.example.Backup")
    let sync = try! AppID("org.example.Sync")

    @Test func aTaskTakesTheLockAndItsEndReleasesIt() throws {
        var state = NotifydState()
        let begun = try state.beginTask(backup, name: "upload", owner: ":1.5", seconds: 180, at: 0)
        #expect(begun.value == BackgroundTask(id: 1, app: backup, name: "upload", owner: ":1.5", began: 0, deadline: 180 * Self.second))
        #expect(begun.outcome.effects == [.inhibitionChanged(why: "org.example.Backup: upload")])
        #expect(begun.outcome.writes.isEmpty, "tasks are not stored")
        let second = try state.beginTask(sync, name: "push", owner: ":1.6", seconds: 60, at: Self.second)
        #expect(second.outcome.effects == [.inhibitionChanged(why: "org.example.Backup: upload, org.example.Sync: push")])
        let ended = try state.endTask(1)
        #expect(ended.effects == [.taskEnded(begun.value, .ended), .inhibitionChanged(why: "org.example.Sync: push")])
        #expect(try state.endTask(2).effects.last == .inhibitionChanged(why: nil))
        let again = #expect(throws: NotifydError.self) { try state.endTask(2) }
        #expect(again?.code == .unknownTask)
    }

    @Test func theCueComesFiveSecondsBeforeTheDeadlineThenTheTaskExpires() throws {
        var state = NotifydState()
        let task = try state.beginTask(backup, name: "upload", owner: ":1.5", seconds: 30, at: 0).value
        #expect(state.tasks.nextWake == 25 * Self.second)
        #expect(state.runDueTasks(at: 24 * Self.second).isEmpty)
        #expect(state.runDueTasks(at: 25 * Self.second).effects == [.taskExpiring(task, secondsLeft: 5)])
        #expect(state.runDueTasks(at: 26 * Self.second).isEmpty, "one cue")
        #expect(state.tasks.nextWake == 30 * Self.second)
        #expect(state.runDueTasks(at: 30 * Self.second).effects == [.taskEnded(BackgroundTask(id: task.id, app: task.app, name: task.name, owner: task.owner, began: task.began, deadline: task.deadline, cued: true), .expired), .inhibitionChanged(why: nil)])
        #expect(state.tasks.nextWake == nil)
    }

    /// A machine asleep past the deadline: at resume the task expires
    /// without a cue it could no longer use.
    @Test func aDeadlinePassedAsleepExpiresAtResumeWithoutACue() throws {
        var state = NotifydState()
        let task = try state.beginTask(backup, name: "upload", owner: ":1.5", seconds: 180, at: 0).value
        #expect(state.runDueTasks(at: 3600 * Self.second).effects == [.taskEnded(task, .expired), .inhibitionChanged(why: nil)])
    }

    @Test func aConnectionThatLeavesAbandonsItsTasksOnly() throws {
        var state = NotifydState()
        let first = try state.beginTask(backup, name: "a", owner: ":1.5", seconds: 60, at: 0).value
        _ = try state.beginTask(sync, name: "b", owner: ":1.6", seconds: 60, at: 0)
        let left = state.tasksOwnerLeft(":1.5")
        #expect(left.effects == [.taskEnded(first, .abandoned), .inhibitionChanged(why: "org.example.Sync: b")])
        #expect(state.tasksOwnerLeft(":1.5").isEmpty)
    }

    @Test func sixteenTasksPerAppAndNamesAreChecked() throws {
        var state = NotifydState()
        for index in 0..<TaskBook.maximumPerApp {
            _ = try state.beginTask(backup, name: "t\(index)", owner: ":1.5", seconds: 60, at: 0)
        }
        let refused = #expect(throws: NotifydError.self) { try state.beginTask(backup, name: "one more", owner: ":1.5", seconds: 60, at: 0) }
        #expect(refused?.code == .limitExceeded)
        _ = try state.beginTask(sync, name: "other app", owner: ":1.5", seconds: 60, at: 0)
        for name in ["", String(repeating: "x", count: 256), "line\nbreak"] {
            let bad = #expect(throws: NotifydError.self) { try state.beginTask(sync, name: name, owner: ":1.5", seconds: 60, at: 0) }
            #expect(bad?.code == .invalidArgs)
        }
        #expect(state.tasks.tasks.count == TaskBook.maximumPerApp + 1)
    }

    @Test func timeRemainingIsTheAppsFirstDeadline() throws {
        var state = NotifydState()
        #expect(state.tasks.timeRemaining(of: backup, at: 0) == 0)
        _ = try state.beginTask(backup, name: "long", owner: ":1.5", seconds: 180, at: 0)
        _ = try state.beginTask(backup, name: "short", owner: ":1.5", seconds: 60, at: 10 * Self.second)
        #expect(state.tasks.timeRemaining(of: backup, at: 20 * Self.second) == 50)
        #expect(state.tasks.timeRemaining(of: sync, at: 20 * Self.second) == 0)
    }

    @Test func aClockStepMovesDeadlines() throws {
        var state = NotifydState()
        _ = try state.beginTask(backup, name: "upload", owner: ":1.5", seconds: 60, at: 10_000 * Self.second)
        _ = state.shiftDeadlines(by: -3600 * Self.second)
        #expect(state.runDueTasks(at: (10_000 - 3600 + 54) * Self.second).isEmpty)
        #expect(state.runDueTasks(at: (10_000 - 3600 + 55) * Self.second).effects.count == 1, "the cue, not an hour late")
    }
}
