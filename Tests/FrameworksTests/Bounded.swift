import Foundation

/// A call that may block forever (a prompt's answer wait, a client read) runs where a watchdog
/// can end the test: Swift Testing's `.timeLimit` cannot stop a thread that never yields, nor an
/// await whose continuation is never resumed, so a planted never-returning wait hung the whole run
/// with no output. Past the bound the test fails with `TimedOut`; the stuck thread or task is
/// left behind (the process ends with the run).
struct TimedOut: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "did not return within \(seconds) s" }
}

private final class Once<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)
    private var continuation: CheckedContinuation<T, any Error>?

    func resume(_ r: Result<T, any Error>) {
        lock.lock()
        guard result == nil else { return lock.unlock() }
        result = r
        let k = continuation
        continuation = nil
        lock.unlock()
        done.signal()
        k?.resume(with: r)
    }

    func wait(_ seconds: Double) -> Result<T, any Error> {
        if done.wait(timeout: .now() + seconds) == .timedOut { resume(.failure(TimedOut(seconds: seconds))) }
        lock.lock()
        defer { lock.unlock() }
        return result!
    }

    func attach(_ k: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let result {
            lock.unlock()
            k.resume(with: result)
        } else {
            continuation = k
            lock.unlock()
        }
    }
}

/// `body` on a thread of its own, waited for at most `seconds`.
func bounded<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let once = Once<T>()
    Thread { once.resume(Result { try body() }) }.start()
    return try once.wait(seconds).get()
}

/// `body` in a task of its own, awaited for at most `seconds`.
func bounded<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = Once<T>()
    Task {
        do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(.failure(TimedOut(seconds: seconds))) }
    return try await withCheckedThrowingContinuation { once.attach($0) }
}
