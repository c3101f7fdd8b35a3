import Foundation

/// Threads that run blocking jobs (HTTP calls) and are kept for the next one: starting a thread
/// per request costs more than the request itself on loopback. At most `maxThreads` run at once;
/// past that, jobs wait in order.
final class WorkerPool: @unchecked Sendable {
    private let cond = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var threads = 0
    private var idle = 0
    let maxThreads: Int
    let name: String

    init(name: String, maxThreads: Int) {
        self.name = name
        self.maxThreads = maxThreads
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        cond.lock()
        jobs.append(job)
        if idle == 0 && threads < maxThreads {
            threads += 1
            let t = Thread { [self] in work() }
            t.name = "\(name).\(threads)"
            t.start()
        } else {
            cond.signal()
        }
        cond.unlock()
    }

    private func work() {
        while true {
            cond.lock()
            while jobs.isEmpty {
                idle += 1
                cond.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            cond.unlock()
            job()
        }
    }
}
