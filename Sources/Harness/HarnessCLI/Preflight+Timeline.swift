import AppGroup
import Foundation
import HarnessKit

#if canImport(Glibc)
import Glibc
#endif

extension Preflight {
    /// `--duration` changes how long a run is: its dates must still fit (`ScenarioTimeline`); the
    /// scenario's own duration was checked when it was parsed.
    static func timeline(_ scenarios: [(path: String, scenario: Scenario)], durationOverride: Duration?) throws {
        guard let durationOverride else { return }
        let seconds = Int(durationOverride.components.seconds)
        for (path, sc) in scenarios {
            if let (key, message) = ScenarioTimeline.problem(sc, durationSeconds: seconds) {
                throw InputError("--duration \(seconds)s with \(path): \(key): \(message)")
            }
        }
    }

    /// The device root a run will create and write: a probe directory made and removed in it (or
    /// in its nearest existing parent) proves it writable before anything runs. `access(2)` alone
    /// would pass a read-only mount's directory as root.
    static func writableDeviceRoot(_ path: String, source: String) throws {
        var dir = path
        var st = stat()
        while stat(dir, &st) != 0 {
            let parent = PathText.directory(of: dir)
            if parent.isEmpty || parent == dir { return }  // nothing exists: mkdir -p names the failing part
            dir = parent
        }
        let probe = dir + "/.sth-probe-\(getpid())"
        guard mkdir(probe, 0o700) == 0 else {
            throw InputError("\(source) \(path): cannot write in \(dir) (\(String(cString: strerror(errno)))); a run needs a writable device root")
        }
        rmdir(probe)
    }
}
