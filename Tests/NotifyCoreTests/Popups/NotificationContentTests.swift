import NotifyCore
import Testing

@Suite struct NotificationContentTests {
    @Test func finished() {
        let content = NotificationContent.forEvent(WorkerEvent(kind: .finished, title: "a.iso", path: "/d/a.iso"))
        #expect(
            content
                == NotificationContent(
                    summary: "Download complete", body: "a.iso", category: "transfer.complete",
                    sound: .named("complete-download"), openPath: "/d/a.iso"))
        #expect(NotificationContent.forEvent(WorkerEvent())?.body == "")
    }

    @Test func failed() {
        let content = NotificationContent.forEvent(WorkerEvent(kind: .failed, title: "a.iso", error: "disk full"))
        #expect(
            content
                == NotificationContent(
                    summary: "Download failed", body: "a.iso\ndisk full", category: "transfer.error",
                    sound: .named("dialog-error"), openPath: nil))
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .failed, title: "a.iso"))?.body == "a.iso")
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .failed, error: "404"))?.body == "404")
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .failed))?.body == "")
    }

    @Test func fetchWithNewData() {
        let expected = NotificationContent(
            summary: "New content", body: "Inbox", category: nil, sound: .named("message-new-instant"),
            openPath: nil)
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .fetch, title: "Inbox")) == expected)
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .fetch, title: "Inbox", result: .newData)) == expected)
    }

    @Test func eventsThatPostNothing() {
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .progress, bytesWritten: 1)) == nil)
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .fetch, result: .noData)) == nil)
        #expect(NotificationContent.forEvent(WorkerEvent(kind: .fetch, result: .failed)) == nil)
        for kind in EventKind.allCases {
            #expect(NotificationContent.forEvent(WorkerEvent(kind: kind, notify: false)) == nil)
        }
    }

    @Test func summaryAndBodyOverride() {
        let content = NotificationContent.forEvent(
            WorkerEvent(kind: .failed, title: "t", summary: "Backup failed", body: "see the log", error: "e"))
        #expect(content?.summary == "Backup failed")
        #expect(content?.body == "see the log")
        #expect(content?.category == "transfer.error")
    }

    @Test func soundMapping() {
        func sound(_ value: String?) -> SoundRequest? {
            NotificationContent.forEvent(WorkerEvent(sound: value))?.sound
        }
        #expect(sound(nil) == .named("complete-download"))
        #expect(sound("") == .silent)
        #expect(sound("bell") == .named("bell"))
        #expect(sound("/usr/share/sounds/x.oga") == .file("/usr/share/sounds/x.oga"))
        #expect(SoundRequest(eventSound: "relative.oga") == .named("relative.oga"))
    }
}
