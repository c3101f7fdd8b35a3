import Foundation

/// The environment a stand-in reads: the process's, or — for a stand-in the harness runs inside
/// its own process, a thread each (`InProcessStandIns`) — the one that thread was given. Every
/// read of the environment on a stand-in's path goes through here, so a stand-in sees the same
/// variables however it runs.
public enum StandInEnvironment {
    private static let key = "sth.stand-in.environment"

    /// The calling thread's environment if it was given one, else the process's.
    public static var current: [String: String] {
        (Thread.current.threadDictionary[key] as? [String: String]) ?? ProcessInfo.processInfo.environment
    }

    /// True when the calling thread runs a stand-in inside the harness.
    public static var isThreadOwn: Bool { Thread.current.threadDictionary[key] != nil }

    /// Gives the calling thread its own environment (nil: the process's again).
    public static func setForThisThread(_ env: [String: String]?) { Thread.current.threadDictionary[key] = env }
}
