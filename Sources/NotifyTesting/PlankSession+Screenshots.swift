import Foundation

/// What a person sees of the dock: screenshots of its region under Xvfb,
/// compared pixel by pixel with imagemagick.
extension PlankSession {
    /// Saves the screen's `region` as a PNG.
    public func screenshot(of region: Geometry, to file: URL) throws {
        let whole = file.deletingPathExtension().appendingPathExtension("screen.png")
        defer { try? FileManager.default.removeItem(at: whole) }
        try screen.screenshot(to: whole)
        let result = try runProcess("/usr/bin/convert", [whole.path, "-crop", region.description, "+repage", file.path])
        guard result.status == 0 else { throw TestFailure("convert failed: \(result.stderr)") }
    }

    /// Saves the dock once it has settled: two screenshots in a row that are
    /// the same (Plank animates an icon for a moment when it changes).
    public func settledDockImage(of region: Geometry, to file: URL, seconds: Double = 20) throws {
        let previous = file.deletingPathExtension().appendingPathExtension("previous.png")
        defer { try? FileManager.default.removeItem(at: previous) }
        try screenshot(of: region, to: previous)
        try waitUntil("the dock stops changing", seconds: seconds) {
            try screenshot(of: region, to: file)
            if try Self.differingPixels(previous, file) == 0 { return true }
            try FileManager.default.removeItem(at: previous)
            try FileManager.default.moveItem(at: file, to: previous)
            return false
        }
    }

    /// Waits (bounded) until the settled dock differs from `reference` in at
    /// least `pixels` pixels; saves it to `file` and returns how many differ.
    @discardableResult
    public func waitForDockImage(
        of region: Geometry, to file: URL, differingFrom reference: URL, byAtLeast pixels: Int, seconds: Double = 20
    ) throws -> Int {
        var difference = 0
        try waitWithLog(
            "the dock (\(region)) differs from \(reference.lastPathComponent) in \(pixels) pixels",
            details: { "last difference: \(difference) pixels" }, seconds: seconds
        ) {
            try settledDockImage(of: region, to: file, seconds: min(seconds, 10))
            difference = try Self.differingPixels(reference, file)
            return difference >= pixels
        }
        return difference
    }

    /// How many pixels of two images of the same size differ
    /// (`compare -metric AE`, imagemagick).
    public static func differingPixels(_ first: URL, _ second: URL) throws -> Int {
        let result = try runProcess("/usr/bin/compare", ["-metric", "AE", first.path, second.path, "null:"])
        // 0: same, 1: different, 2: an error (e.g. the sizes differ).
        guard result.status == 0 || result.status == 1,
            let number = result.stderr.split(separator: " ").first.flatMap({ Double($0) })
        else { throw TestFailure("compare failed (\(result.status)): \(result.stderr)") }
        return Int(number)
    }
}
