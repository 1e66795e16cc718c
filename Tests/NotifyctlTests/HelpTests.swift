import ArgumentParser
import Testing

@testable import notifyctl

/// Every command teaches by example, and every example is a valid command line.
@Suite struct HelpTests {
    /// Every command type of notifyctl, root first.
    static let commands: [any ParsableCommand.Type] = {
        var all: [any ParsableCommand.Type] = []
        func visit(_ command: any ParsableCommand.Type) {
            all.append(command)
            command.configuration.subcommands.forEach(visit)
        }
        visit(NotifyctlCommand.self)
        return all
    }()

    @Test func everyCommandHasExamples() {
        for command in Self.commands {
            let discussion = command.configuration.discussion
            #expect(discussion.contains("Examples:\n  notifyctl "), "\(command) has no examples")
            #expect(!command.configuration.abstract.isEmpty, "\(command) has no abstract")
        }
    }

    /// The notifyctl part of each example line: up to a pipe, redirection or `&&`.
    static var examples: [[String]] {
        var lines: [[String]] = []
        for command in commands {
            for line in command.configuration.discussion.split(separator: "\n") where line.hasPrefix("  notifyctl ") {
                let words = line.split(separator: " ").map(String.init)
                let stop = words.firstIndex { ["|", ">", ">/dev/null", "&&", "||"].contains($0) } ?? words.endIndex
                lines.append(Array(words[1..<stop]))
            }
        }
        return lines
    }

    @Test func examplesParse() throws {
        #expect(Self.examples.count >= 35)
        for example in Self.examples {
            do {
                _ = try NotifyctlCommand.parseAsRoot(example)
            } catch {
                let status = NotifyctlCommand.exitStatus(for: error)
                #expect(status == ExitStatus.success, "notifyctl \(example.joined(separator: " ")) does not parse")
            }
        }
    }

    @Test func rootHelpNamesExitStatusesAndCompletions() {
        let help = NotifyctlCommand.helpMessage(columns: 200)
        #expect(help.contains("Exit status: 0 success; 1 "))
        #expect(help.contains("--generate-completion-script bash"))
        for command in [
            "status", "badge", "activate", "state", "apps", "event", "sessions", "complete", "cancel", "wait", "monitor",
            "fetch", "task", "tasks",
        ] {
            #expect(help.contains("\n  \(command) "), "\(command) is not listed")
        }
    }

    @Test func eventHelpNamesItsExitStatusAndWait() {
        let help = NotifyctlCommand.helpMessage(for: Event.self, columns: 200)
        #expect(help.contains("Exit status: 0 when notifyd stored the event"))
        #expect(help.contains("A download hook can use --wait"))
        #expect(help.contains("USAGE: notifyctl event <session> --app <app> [--failed <error> | --progress <written/expected> | --fetch <result>]"))
        #expect(help.contains("(values: new-data, no-data, failed)"))
    }

    /// A state set by `notifyctl activate` ends with notifyctl's connection:
    /// both commands say so, so that a script is not surprised by `not-running`.
    @Test(arguments: [Activate.self, State.self] as [any ParsableCommand.Type])
    func activateAndStateExplainThatAStateBelongsToAConnection(_ command: any ParsableCommand.Type) {
        let help = NotifyctlCommand.helpMessage(for: command, columns: 1000)
        #expect(help.contains("A state belongs to a running connection"))
        #expect(help.contains("a script's `notifyctl activate APP` resets the badge"))
        #expect(help.contains("leaves the app not-running once notifyctl exits"))
        #expect(help.contains("Examples:\n  notifyctl \(command._commandName) firefox\n"))
    }

    @Test func appsHelpDescribesTheTable() {
        let help = NotifyctlCommand.helpMessage(for: Apps.self, columns: 200)
        #expect(help.contains("USAGE: notifyctl apps [--json]"))
        #expect(help.contains("nothing when notifyd knows no app"))
    }

    @Test func monitorHelpShowsALine() {
        let help = NotifyctlCommand.helpMessage(for: Monitor.self, columns: 200)
        #expect(help.contains("2026-11-21T10:00:00.123Z BadgeChanged app=firefox count=3"))
    }

    @Test func incrementUsageShowsOneOptionalNumber() {
        let help = NotifyctlCommand.helpMessage(for: Badge.Increment.self, columns: 200)
        #expect(help.contains("USAGE: notifyctl badge increment <app> [<n>] [--json]"))
        #expect(help.contains("notifyctl badge increment firefox -2"))
    }
}
