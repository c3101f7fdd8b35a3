import Foundation

/// Where a run is, as the clock loop sees it: sent a few times a second (`ScenarioRunner.Options.tick`).
public struct RunProgress: Sendable, Equatable {
    /// Device seconds since the scenario's start, and how many the run covers (workload + settling).
    public var deviceSeconds: Double
    public var deviceTotalSeconds: Double
    /// Kills, terms and stops so far in this run.
    public var faults: Int

    public init(deviceSeconds: Double, deviceTotalSeconds: Double, faults: Int) {
        self.deviceSeconds = deviceSeconds
        self.deviceTotalSeconds = deviceTotalSeconds
        self.faults = faults
    }

    public var fraction: Double { deviceTotalSeconds > 0 ? min(1, max(0, deviceSeconds / deviceTotalSeconds)) : 0 }
}

/// The live progress of `harness run`: runs done of total, device time covered, faults and
/// violations so far, and an ETA from the wall time per unit of progress so far. Pure: told what
/// happened, it says what to print; `RunCommand` prints it — redrawn in place on a TTY
/// (`redraw`), as a plain line every `plainIntervalSeconds` otherwise (CI logs).
public struct ProgressLine: Sendable {
    public static let plainIntervalSeconds = 10.0
    public static let ttyIntervalSeconds = 0.2

    public let total: Int
    public private(set) var done = 0
    public private(set) var violations = 0
    public private(set) var finishedDeviceSeconds = 0.0
    public private(set) var finishedFaults = 0
    public private(set) var current: RunProgress?
    public private(set) var currentName = ""
    let startWall: Double

    public init(total: Int, startWall: Double) {
        self.total = total
        self.startWall = startWall
    }

    public mutating func started(_ name: String) {
        currentName = name
        current = RunProgress(deviceSeconds: 0, deviceTotalSeconds: 0, faults: 0)
    }

    public mutating func update(_ p: RunProgress) { current = p }

    /// A run ended (the device time it covered is its last update's): its faults, and whether it
    /// violated an invariant.
    public mutating func finished(faults: Int, violated: Bool) {
        done += 1
        finishedDeviceSeconds += current?.deviceSeconds ?? 0
        finishedFaults += faults
        if violated { violations += 1 }
        current = nil
    }

    /// Progress over the whole invocation, 0...1.
    public var fraction: Double { total > 0 ? min(1, (Double(done) + (current?.fraction ?? 0)) / Double(total)) : 1 }

    /// Wall seconds left at the rate so far; nil until there is a rate to go by.
    public func etaSeconds(now: Double) -> Double? {
        let f = fraction
        let elapsed = now - startWall
        guard f > 0.01, elapsed > 0.5 else { return nil }
        return elapsed / f - elapsed
    }

    public func text(now: Double) -> String {
        let device = finishedDeviceSeconds + (current?.deviceSeconds ?? 0)
        let faults = finishedFaults + (current?.faults ?? 0)
        var parts = [
            "[\(min(done + (current == nil ? 0 : 1), total))/\(total)] \(Int((fraction * 100).rounded(.down)))%",
            "device \(Self.clock(device))", "\(faults) fault\(faults == 1 ? "" : "s")", "\(violations) violation\(violations == 1 ? "" : "s")",
        ]
        parts.append("ETA " + (etaSeconds(now: now).map(Self.clock) ?? "?"))
        if current != nil, !currentName.isEmpty { parts.append(currentName) }
        return parts.joined(separator: " · ")
    }

    /// `h:mm:ss` (or `m:ss` under an hour).
    public static func clock(_ seconds: Double) -> String {
        let s = Int(max(0, seconds).rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s % 3600 / 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// The bytes that replace the line on a terminal: carriage return, the text cut to the
    /// terminal's width (a wrapped line could not be redrawn), erase to the end of the line.
    public static func redraw(_ text: String, columns: Int) -> String {
        let width = max(20, columns - 1)
        let cut = text.count > width ? String(text.prefix(width - 1)) + "…" : text
        return "\r" + cut + "\u{1B}[K"
    }

    /// Clears the live line, so another message can be printed in its place.
    public static let clear = "\r\u{1B}[K"
}
