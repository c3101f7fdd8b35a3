/// Bounds of the hardened host's retries (as-written never retries: the Dart `catch` just prints).
public enum RetryPolicy {
    /// Delay after the first failed attempt; doubles per attempt.
    public static let initialBackoffSeconds: Double = 0.5
    /// No delay is ever longer than this.
    public static let maxBackoffSeconds: Double = 30
    /// Attempts in one episode (0.5+1+2+4+8+16+30×5 ≈ 3.5 min). After that a settlement is
    /// "stalled" until the next poll tick starts a new episode, so the host never gives up for
    /// good but never has more than one request or timer outstanding per call either.
    public static let maxAttemptsPerEpisode = 12

    /// Delay before attempt `failedAttempts + 1`, after `failedAttempts` ≥ 1 failures.
    public static func backoffSeconds(afterFailedAttempts failedAttempts: Int) -> Double {
        precondition(failedAttempts >= 1, "backoff is only asked for after a failure")
        // Exponent capped so the power never overflows; the cap makes larger exponents moot.
        let exponent = min(failedAttempts - 1, 16)
        return min(initialBackoffSeconds * Double(1 << exponent), maxBackoffSeconds)
    }
}
