import DBus
import Foundation
import Testing
import NotifyTesting

extension ServerRun {
    static let hostileTitles = [
        "<untitled>.pdf", #"R&D <b>notes</b> "v2" <draft>.pdf"#, #"<a href="https://example.com/">invoice.pdf</a>"#,
    ]

    /// 6. Titles that look like markup.
    func hostileTitles() throws {
        let app = app(.hostileTitles)
        for (index, title) in Self.hostileTitles.enumerated() {
            try event("hostile-\(index)", app: app, ["--title", title])
        }
        let received = try waitForNotifies(app, count: Self.hostileTitles.count)
        for (index, title) in Self.hostileTitles.enumerated() {
            let posted = try waitForPosted("hostile-\(index)")
            check(posted.details["body"] == .string(title), "posted body \(String(describing: posted.details["body"]))")
            guard let notify = received.first(where: { $0.id == posted.id }) else {
                check(false, "no Notify answered with id \(posted.id)")
                continue
            }
            check(notify.summary == "Download complete", "summary \(notify.summary.debugDescription)")
            check(
                notify.body == wireBody(title),
                "body \(notify.body.debugDescription), expected \(wireBody(title).debugDescription)")
        }
        if expectation.readsDisplayedText {
            // The history keeps the body as received; dunst shows it as Pango markup.
            let shown = try dunstBodies().map(Self.displayedText)
            for title in Self.hostileTitles {
                check(shown.contains(title), "dunst shows \(shown), not \(title.debugDescription)")
            }
        }
    }

    /// The text a person sees for a body read as markup (dunst's `markup = full`):
    /// tags dropped, entities decoded. Good enough for the titles of this suite.
    static func displayedText(_ markup: String) -> String {
        var text = ""
        var inTag = false
        for character in markup {
            if character == "<" { inTag = true } else if character == ">", inTag { inTag = false } else if !inTag {
                text.append(character)
            }
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text
    }

    /// What dunst shows (its history after closing everything), bodies only.
    func dunstBodies() throws -> [String] {
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DISPLAY": server.display]
        _ = try runProcess("/usr/bin/dunstctl", ["close-all"], environment: environment)
        var bodies: [String] = []
        try waitUntil("dunst's history holds the hostile titles", seconds: 10) {
            let history = try runProcess("/usr/bin/dunstctl", ["history"], environment: environment)
            guard let json = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any],
                let data = json["data"] as? [[[String: Any]]]
            else { return false }
            bodies = (data.first ?? []).compactMap { ($0["body"] as? [String: Any])?["data"] as? String }
            return bodies.count >= Self.hostileTitles.count
        }
        return bodies
    }
}
