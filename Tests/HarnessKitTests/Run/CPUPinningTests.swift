import Foundation
import HarnessKit
import Supervision
import Testing

/// A stepped run keeps itself and its processes on one CPU (CPUPinning): the choice
/// (`HARNESS_CPU`), the CPU each run or explore worker gets, and the mask every thread it starts
/// and every child it spawns inherits — through `ChildProcess`'s long-lived spawner thread too.
@Suite(.timeLimit(.minutes(1))) struct CPUPinningTests {
    @Test func theChoiceIsAutoOffOrACPUThisProcessMayUse() throws {
        #expect(try CPUPinning.choice([:]) == .auto)
        #expect(try CPUPinning.choice(["HARNESS_CPU": ""]) == .auto)
        #expect(try CPUPinning.choice(["HARNESS_CPU": "auto"]) == .auto)
        #expect(try CPUPinning.choice(["HARNESS_CPU": "off"]) == .off)
        let allowed = CPUPinning.allowedCPUs()
        #expect(!allowed.isEmpty && allowed == allowed.sorted())
        #expect(try CPUPinning.choice(["HARNESS_CPU": String(allowed[0])]) == .cpu(allowed[0]))
        for bad in ["9999", "-1", "one", "0x1", "auto,off"] {
            do {
                _ = try CPUPinning.choice(["HARNESS_CPU": bad])
                Issue.record("HARNESS_CPU=\(bad) was taken")
            } catch {
                #expect(error.description.hasPrefix("HARNESS_CPU=\"\(bad)\": use auto, off or a CPU this process may run on ("), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test func eachWorkerGetsTheNextCPUAndOffOrOneCPUPinsNothing() throws {
        let allowed = CPUPinning.allowedCPUs()
        #expect(CPUPinning.cpu(for: .off) == nil)
        guard allowed.count >= 2 else {
            // Nothing to choose between: never pinned.
            #expect(CPUPinning.cpu(for: .auto) == nil && CPUPinning.cpu(for: .cpu(allowed[0])) == nil)
            return
        }
        let n = allowed.count
        for (i, c) in allowed.enumerated() {
            #expect(CPUPinning.cpu(for: .cpu(c)) == c)
            #expect(CPUPinning.cpu(for: .cpu(c), worker: 1) == allowed[(i + 1) % n], "the next worker, the next CPU")
            #expect(CPUPinning.cpu(for: .cpu(c), worker: n) == c, "round")
        }
        let workers = (0..<n).compactMap { CPUPinning.cpu(for: .cpu(allowed[0]), worker: $0) }
        #expect(Set(workers).count == n, "as many workers as CPUs: one each")
        // Explore resolves its workers' CPUs once.
        #expect(CrashPointExplorer.workerCPUs(.cpu(allowed[0]), count: n) == allowed.map { .cpu($0) })
        #expect(CrashPointExplorer.workerCPUs(.off, count: 2) == [.off, .off])
        #expect(Set(CrashPointExplorer.workerCPUs(.auto, count: n)).count == n)
        #expect(allowed.contains(CPUPinning.cpu(for: .auto) ?? -1))
    }

    @Test func aBadChoiceIsOneLineAndExit2BeforeAnythingRuns() throws {
        let scenario = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Sources/Systems/FocusPledge/scenarios/focuspledge.yaml").standardized.path
        let out = NSTemporaryDirectory() + "cpu-pinning-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var environment = ProcessInfo.processInfo.environment
        environment[CPUPinning.environmentVariable] = "4096"
        let errPath = out + ".stderr"
        FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let p = try ChildProcess.spawn(
            try Executables.path(of: "harness"), ["run", scenario, "--variant", "hardened", "--out", out],
            environment: environment, captureStdout: true, stderrTo: err.fileDescriptor)
        while p.readLine(timeout: .seconds(60)) != nil {}
        let status = p.wait(timeout: .seconds(30)) ?? p.killAndReap()
        try err.close()
        let text = try String(contentsOfFile: errPath, encoding: .utf8)
        #expect(status == .exited(2), "\(text)")
        #expect(text.hasPrefix("error: HARNESS_CPU=\"4096\": use auto, off or a CPU this process may run on") && text.filter { $0 == "\n" }.count == 1, "\(text)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        #expect(left.isEmpty, "nothing ran: \(left)")
    }

    /// The CPU a child may run on, as its kernel status says.
    static func childCPUs() throws -> String {
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "grep Cpus_allowed_list /proc/$$/status"])
        let line = child.readLine(timeout: .seconds(10)) ?? ""
        _ = child.wait(timeout: .seconds(10))
        return line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? line
    }

    @Test func aPinnedThreadAndTheChildrenItSpawnsStayOnItsCPUAndItsMaskComesBack() throws {
        let allowed = CPUPinning.allowedCPUs()
        try #require(allowed.count >= 2, "needs two CPUs to tell pinned from not")
        let target = allowed[allowed.count - 1]
        let before = try Self.childCPUs()
        let inside = try CPUPinning.pinned(to: target) {
            #expect(CPUPinning.allowedCPUs() == [target])
            // A thread started now inherits the mask.
            let seen = LockedBox<[Int32]>([])
            let done = DispatchSemaphore(value: 0)
            Thread {
                seen.value = CPUPinning.allowedCPUs()
                done.signal()
            }.start()
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(seen.value == [target])
            return try Self.childCPUs()
        }
        #expect(inside == String(target), "the child is spawned by ChildProcess's own thread, yet runs where its caller may")
        #expect(CPUPinning.allowedCPUs() == allowed, "the thread's mask is given back")
        #expect(try Self.childCPUs() == before)
        // nil: nothing changes.
        CPUPinning.pinned(to: nil) { #expect(CPUPinning.allowedCPUs() == allowed) }
    }
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var v: T
    init(_ v: T) { self.v = v }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return v }
        set { lock.lock(); v = newValue; lock.unlock() }
    }
}
