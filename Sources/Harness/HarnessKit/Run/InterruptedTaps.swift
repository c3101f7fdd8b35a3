import AppGroup
import Foundation
import History

/// A tap the app died while handling (EMULATED-IOS.md §7.7): the app takes a tap out of its inbox
/// before it acts on it, so a process killed inside the handler — at a crash point before its
/// first effect, say — loses the tap with itself, whatever the app does. On a phone the user sees
/// the app vanish and, once it is back, may tap again. The harness plays that user: when an app
/// exits with a tap it took in (`user_input`) and never finished (`user_input_done`), or one whose
/// inbox file is gone untraced, it sends the same message again — once — for the relaunched app
/// to read at launch, and records `user_retry`, if the scenario's user taps again (`user.retry`:
/// always, never, or with a probability; `UserRetry`). A tap it does not repeat (the user does not,
/// the app is not coming back, or the repeat died too) is recorded `user_tap_lost`, so no checker
/// can pass it silently.
/// Taps still in the inbox are not touched: the relaunched app reads them at launch.
extension LiveRun {
    /// Called when a long-lived app role exited (after the process table decided what follows).
    func repeatInterruptedTaps(of role: String) {
        guard inboxes.taps.values.contains(where: { $0.role == role }) else { return }
        readTapProgress(of: role)
        let entry = processes.table.entry(role)
        let comesBack = entry.map { $0.restartAtNanos != nil && !$0.heldDownByOS } ?? false
        let inbox = inboxes.open[role]
        for (seq, sent) in inboxes.taps.filter({ $0.value.role == role }).sorted(by: { $0.key < $1.key }) {
            let tookIn = inboxes.started.contains(seq)
            // Still waiting in the inbox: the relaunched app reads it at launch.
            if !tookIn, inbox?.holds(seq) ?? false { continue }
            inboxes.taps[seq] = nil
            inboxes.started.remove(seq)
            var fields = sent.message.fields
            fields["action"] = sent.message.action
            fields["target"] = role
            fields["seq"] = String(seq)
            fields["how"] = tookIn ? "taken in, not finished" : "taken out of the inbox, never traced"
            if let first = sent.retryOf { fields["retryOf"] = String(first) }
            guard sent.retryOf == nil, comesBack else {
                fields["why"] = sent.retryOf != nil ? "the app died in the repeated tap too" : "the app is not relaunched"
                rec.record(.userTapLost, fields)
                continue
            }
            // The scenario's user (`user.retry`): a real user often does not tap again.
            inboxes.retryChoiceDecided = true
            guard o.retry.retries(seed: o.seed, tap: seq) else {
                fields["why"] = "the user does not tap again (user.retry: \(o.retry))"
                rec.record(.userTapLost, fields)
                continue
            }
            let earlier = inboxes.recent[role, default: []].filter { $0.seq < seq }
            let repeats = Array(pack.repeatTaps(of: sent.message, in: role, earlier: earlier).prefix(InterruptedTapsBound.tapsPerRepeat))
            guard !repeats.isEmpty else {
                fields["why"] = "the user does not tap again (the pack's repeatTaps)"
                rec.record(.userTapLost, fields)
                continue
            }
            var seqs: [Int] = []
            for m in repeats {
                guard let again = sendToInbox(role, m) else { break }
                seqs.append(again)
                inboxes.taps[again] = .init(role: role, message: m, retryOf: seq)
            }
            guard seqs.count == repeats.count else {
                fields["why"] = "the repeat could not be written to the inbox"
                rec.record(.userTapLost, fields)
                continue
            }
            fields["retrySeq"] = seqs.map(String.init).joined(separator: ",")
            if repeats.count > 1 || repeats.first?.action != sent.message.action {
                fields["taps"] = repeats.map(\.action).joined(separator: ",")
            }
            rec.record(.userRetry, fields)
        }
    }

    /// Reads the role's trace on from where it was left: which taps it took in and which it finished.
    func readTapProgress(of role: String) {
        let path = paths.trace(role)
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let offset = inboxes.traceOffsets[path] ?? 0
        try? handle.seek(toOffset: offset)
        guard let data = try? handle.readToEnd(), !data.isEmpty,
            let lastNewline = data.lastIndex(of: UInt8(ascii: "\n"))
        else { return }
        // Only whole lines: a process killed mid-line leaves a torn last line, read again (and
        // dropped) next time.
        inboxes.traceOffsets[path] = offset + UInt64(lastNewline - data.startIndex + 1)
        let marker = Data("user_input".utf8)
        for line in data[..<lastNewline].split(separator: UInt8(ascii: "\n")) where line.range(of: marker) != nil {
            guard let obj = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
                let event = obj["event"] as? String, let seq = (obj["seq"] as? String).flatMap({ Int($0) })
            else { continue }
            switch event {
            case "user_input": inboxes.started.insert(seq)
            case "user_input_done":
                inboxes.started.remove(seq)
                inboxes.taps[seq] = nil
            default: break
            }
        }
    }
}
