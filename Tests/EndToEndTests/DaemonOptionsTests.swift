import Testing
import NotifyTesting

@testable import notifyd

/// notifyd's hand-written command line, and the executable's answers.
@Suite struct DaemonOptionsTests {
    @Test func parsesEveryOption() throws {
        #expect(try DaemonOptions.parse([]) == DaemonOptions())
        let options = try DaemonOptions.parse(["--state-dir", "/tmp/x", "--address=unix:path=/b", "-v"])
        #expect(options.stateDirectory == "/tmp/x" && options.address == "unix:path=/b" && options.verbose)
        #expect(try DaemonOptions.parse(["--state-dir=/s"]).stateDirectory == "/s")
        #expect(try DaemonOptions.parse(["-q"]).quiet)
        #expect(try DaemonOptions.parse(["--help"]).action == .help)
        #expect(try DaemonOptions.parse(["--version"]).action == .version)
        #expect(try DaemonOptions.parse(["--print-introspection"]).action == .printIntrospection)
        #expect(try DaemonOptions.parse(["--print-worker-introspection"]).action == .printWorkerIntrospection)
        #expect(try DaemonOptions.parse(["--launcher-entries", "8"]).launcherEntries == 8)
        #expect(try DaemonOptions.parse(["--launcher-entries=1024"]).launcherEntries == 1024)
    }

    @Test(arguments: [["--bogus"], ["--state-dir"], ["--state-dir", "--verbose"], ["-v", "-q"], ["--verbose=yes"], ["--state-dir="], ["extra"],
        ["--launcher-entries", "0"], ["--launcher-entries=1025"], ["--launcher-entries", "many"], ["--launcher-entries"]])
    func refusesBadUsage(_ arguments: [String]) {
        #expect(throws: DaemonOptions.UsageError.self) { try DaemonOptions.parse(arguments) }
    }

    @Test func theExecutableAnswersHelpVersionAndBadUsage() throws {
        let help = try runProcess(Executables.notifyd, ["--help"])
        #expect(help.status == 0 && help.stdout.contains("--state-dir") && help.stdout.contains("EXAMPLES"))
        #expect(try runProcess(Executables.notifyd, ["--version"]).stdout == "notifyd \(try Executables.releaseVersion())\n")
        let bad = try runProcess(Executables.notifyd, ["--frobnicate"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("Unknown option '--frobnicate'"))
    }
}
