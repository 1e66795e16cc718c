// swift-tools-version:6.0
//
// libFuzzer targets for what notifyd reads from outside (Fuzz/README.md).
// A package of its own, depending on notifyd's by path, so that notifyd's
// own builds (`swift build`, the release build, scripts/test) are
// unchanged. Built only by `scripts/fuzz build`, which passes
// `--sanitize=fuzzer --sanitize=address`: libFuzzer provides `main`, each
// target only `LLVMFuzzerTestOneInput`. The targets read internal decoders
// through `@testable import` (a debug build is testable), so notifyd has no
// public entry point for them.
import PackageDescription

let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

func target(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "NotifydFuzzing", package: "notifyd")] + dependencies,
        swiftSettings: fuzzTarget, linkerSettings: [.unsafeFlags(["-use-ld=lld"])])
}

let package = Package(
    name: "notifyd-libfuzzer",
    dependencies: [.package(name: "notifyd", path: "..")],
    targets: [
        target("fuzz-message"),
        target("fuzz-event"),
        target("fuzz-flatpak-info"),
        target("fuzz-proc-cgroup"),
        target("fuzz-native-frames"),
        target("fuzz-json"),
        target("fuzz-xmpp-stanza"),
        target("fuzz-ntfy-line"),
    ],
    swiftLanguageModes: [.v6]
)
