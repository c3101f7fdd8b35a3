import Foundation
import ScreenTimeModel
import SystemKit

extension DeviceOS {
    /// `system/deviceactivity/` changed: new registrations start being monitored, a changed one
    /// starts over, and a removed one that was inside an interval gets `intervalDidEnd`
    /// (Apple: stopping an ongoing activity ends its interval).
    mutating func registrationsChanged(_ records: [ActivityRegistrationRecord], _ out: inout [OSEffect]) {
        let byName = Dictionary(records.map { ($0.activity, $0) }, uniquingKeysWith: { a, b in a.registeredAt >= b.registeredAt ? a : b })
        for name in activities.keys.sorted() where byName[name] == nil {
            let state = activities.removeValue(forKey: name)!
            out.append(.record(.monitoringRemoved, ["activity": name]))
            if state.inInterval {
                makeCall(.monitor(.intervalDidEnd, activity: name, event: nil), label: ["activity": name, "why": "stopMonitoring"], &out)
            }
        }
        for name in byName.keys.sorted() {
            let record = byName[name]!
            if let existing = activities[name], existing.record == record { continue }
            // Re-registering a name replaces its schedule; the old interval ends silently (Apple
            // documents nothing else; see EMULATED-IOS.md §7).
            let state = ActivityState(record: record, missesStartAtRegistration: configuration.rules.startAtRegistration == .missed)
            activities[name] = state
            out.append(.record(.monitoringRegistered, ["activity": name, "repeats": String(record.schedule.repeats)]))
            if let missed = state.missedInterval(timeZone: timeZone) {
                out.append(.record(.intervalMissed, [
                    "activity": name, "start": String(missed.start.timeIntervalSince1970), "end": String(missed.end.timeIntervalSince1970),
                    "rule": OSRules.ruleName("startAtRegistration"), "why": "its start is the moment it was registered",
                ]))
            }
        }
    }

    /// Makes every boundary callback due by now, in time order across activities.
    mutating func emitDueBoundaries(_ out: inout [OSEffect]) {
        var due: [(ActivityState.Boundary, String)] = []
        for name in activities.keys.sorted() {
            let from = activities[name]!.processedUpTo
            due += activities[name]!.cachedBoundaries(after: from, through: now, timeZone: timeZone).map { ($0, name) }
            activities[name]!.processedUpTo = max(from, now)
        }
        due.sort { ($0.0.at, $0.1, $0.0.kind) < ($1.0.at, $1.1, $1.0.kind) }
        // A reorder fault: an end and the next start of one activity at one instant swap.
        var i = 0
        while i + 1 < due.count {
            let (a, name) = due[i], (b, other) = due[i + 1]
            if name == other && a.at == b.at && a.kind == .end && b.kind == .start, let rule = reorders(name) {
                due.swapAt(i, i + 1)
                out.append(.record(.callbacksReordered, ["activity": name, "fault": "reorder", "rule": FieldFault.ruleName(rule)]))
                i += 2
                continue
            }
            i += 1
        }
        for (b, name) in due { boundary(b, of: name, &out) }
    }

    mutating func boundary(_ b: ActivityState.Boundary, of name: String, _ out: inout [OSEffect]) {
        let label = ["activity": name]
        switch b.kind {
        case .willStart:
            makeCall(.monitor(.intervalWillStartWarning, activity: name, event: nil), label: label, &out)
        case .start:
            activities[name]?.interval = b.interval
            activities[name]?.usage = [:]
            activities[name]?.reached = []
            activities[name]?.warned = []
            activities[name]?.usedInInterval = false
            activities[name]?.pastCountedByRule = []
            makeCall(.monitor(.intervalDidStart, activity: name, event: nil), label: label, &out)
            countPastActivity(name, interval: b.interval, &out)
        case .willEnd:
            makeCall(.monitor(.intervalWillEndWarning, activity: name, event: nil), label: label, &out)
        case .end:
            activities[name]?.interval = nil
            makeCall(.monitor(.intervalDidEnd, activity: name, event: nil), label: label, &out)
            // `repeats: false` is done after its one interval: nothing more comes from it, even when
            // a later time zone change moves its local times to an interval still to come (Apple:
            // the extension "stops receiving callbacks when the interval ends for the first time").
            if activities[name]?.record.schedule.repeats == false { activities[name]?.ended = true }
        }
    }

    // MARK: Event thresholds

    /// Counts the frontmost app's use from `now` to `t` toward every matching event of every
    /// running interval; a warning or threshold reached fires once per interval.
    mutating func accountUsage(until t: Double, _ out: inout [OSEffect]) {
        guard case .app(let app, let until, let label) = frontmost else { return }
        let end = min(t, until)
        guard end > now else { return }
        logUse(app, from: now, to: end)
        let category = configuration.appCategories[app]
        for name in activities.keys.sorted() {
            guard let interval = activities[name]!.interval else { continue }
            let from = max(now, interval.start.timeIntervalSince1970), to = min(end, interval.end.timeIntervalSince1970)
            guard to > from else { continue }
            for event in activities[name]!.events(matching: app, category: category) {
                activities[name]!.usage[event, default: 0] += to - from
                var l = label
                l["activity"] = name
                l["event"] = event
                l["app"] = app
                fireReached(name, event, label: l, &out)
            }
        }
    }

    /// The event's warning and threshold, each once per interval, once its use reaches them.
    mutating func fireReached(_ name: String, _ event: String, label: [String: String], _ out: inout [OSEffect]) {
        let e = activities[name]!.record.events[event]!
        var label = label
        if activities[name]!.pastCountedByRule.contains(event) { label["rule"] = OSRules.ruleName("pastActivity") }
        let used = activities[name]!.usage[event, default: 0]
        if let warnAt = try? ScheduleWarnings.eventWarningUseSeconds(threshold: e.threshold, warningTime: record(name).schedule.warningTime),
            used >= warnAt, !activities[name]!.warned.contains(event)
        {
            activities[name]!.warned.insert(event)
            makeCall(.monitor(.eventWillReachThresholdWarning, activity: name, event: event), label: label, &out)
        }
        if let threshold = try? e.threshold.durationSeconds(), used >= threshold, !activities[name]!.reached.contains(event) {
            activities[name]!.reached.insert(event)
            makeCall(.monitor(.eventDidReachThreshold, activity: name, event: event), label: label, &out)
        }
    }

    mutating func logUse(_ app: String, from: Double, to: Double) {
        if var last = useLog.last, last.app == app, last.to == from {
            last.to = to
            useLog[useLog.count - 1] = last
        } else {
            useLog.append(UseSpan(app: app, from: from, to: to))
        }
        let oldest = to - ActivityState.horizonSeconds
        if useLog.count > Self.maxUseLog || (useLog.first.map { $0.to < oldest } ?? false) {
            useLog.removeAll { $0.to < oldest }
            if useLog.count > Self.maxUseLog { useLog.removeFirst(useLog.count - Self.maxUseLog) }
        }
    }

    /// An interval that started now, after its own start (registered inside it): the use of each
    /// event's apps earlier in it counts when the event asks (`includesPastActivity`, from the
    /// round hour at or before the interval's start, Apple) or `os.rules.pastActivity: always`
    /// says so (from the interval's start).
    mutating func countPastActivity(_ name: String, interval: DateInterval, _ out: inout [OSEffect]) {
        guard let state = activities[name] else { return }
        for event in state.record.events.keys.sorted() {
            let e = state.record.events[event]!
            let always = configuration.rules.pastActivity == .always
            guard e.includesPastActivity || always else { continue }
            let intervalStart = interval.start.timeIntervalSince1970
            let from = e.includesPastActivity ? roundHour(atOrBefore: intervalStart) : intervalStart
            guard now > from else { continue }
            let past = pastUse(of: event, in: state, from: from, to: now)
            guard past > 0 else { continue }
            activities[name]!.usage[event, default: 0] += past
            if !e.includesPastActivity { activities[name]!.pastCountedByRule.insert(event) }
            fireReached(name, event, label: ["activity": name, "event": event, "pastActivitySeconds": String(past)], &out)
        }
    }

    /// Seconds the event's apps (or apps of its categories) were frontmost in `[from, to)`: the
    /// same selection as live use (`ActivityState.events(matching:category:)`).
    func pastUse(of event: String, in state: ActivityState, from: Double, to: Double) -> Double {
        var total = 0.0
        for span in useLog where span.to > from && span.from < to
            && state.events(matching: span.app, category: configuration.appCategories[span.app]).contains(event)
        {
            total += min(span.to, to) - max(span.from, from)
        }
        return total
    }

    /// The local round hour at or before `t` (Apple: "the start of the nearest round hour").
    func roundHour(atOrBefore t: Double) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.dateInterval(of: .hour, for: Date(timeIntervalSince1970: t))?.start.timeIntervalSince1970 ?? t
    }

    func record(_ name: String) -> ActivityRegistrationRecord { activities[name]!.record }

    /// `os.rules.thresholds: atFirstUse`: the first use of the device in a running interval (the
    /// user opens an app, the host included: picks the phone up) makes every event of it not yet
    /// reached reach its threshold, whatever app is used.
    mutating func thresholdsAtFirstUse(app: String, label: [String: String], _ out: inout [OSEffect]) {
        guard configuration.rules.thresholds == .atFirstUse else { return }
        for name in activities.keys.sorted() where activities[name]!.inInterval && !activities[name]!.usedInInterval {
            activities[name]!.usedInInterval = true
            for event in activities[name]!.record.events.keys.sorted() where !activities[name]!.reached.contains(event) {
                activities[name]!.reached.insert(event)
                activities[name]!.warned.insert(event)  // no warning after its threshold
                var l = label
                l["activity"] = name
                l["event"] = event
                l["app"] = app
                l["rule"] = OSRules.ruleName("thresholds")
                makeCall(.monitor(.eventDidReachThreshold, activity: name, event: event), label: l, &out)
            }
        }
    }

    /// When the app in use crosses a threshold or warning still to come (virtual time steps there).
    func usageDeadlines() -> [Double] {
        guard case .app(let app, let until, _) = frontmost else { return [] }
        var out: [Double] = []
        let category = configuration.appCategories[app]
        for name in activities.keys.sorted() {
            let s = activities[name]!
            guard let interval = s.interval else { continue }
            let stop = min(until, interval.end.timeIntervalSince1970)
            for event in s.events(matching: app, category: category) {
                let e = s.record.events[event]!
                let used = s.usage[event, default: 0]
                if !s.reached.contains(event), let threshold = try? e.threshold.durationSeconds() {
                    let at = now + max(0, threshold - used)
                    if at <= stop { out.append(at) }
                }
                if !s.warned.contains(event),
                    let warnAt = try? ScheduleWarnings.eventWarningUseSeconds(threshold: e.threshold, warningTime: s.record.schedule.warningTime)
                {
                    let at = now + max(0, warnAt - used)
                    if at <= stop { out.append(at) }
                }
            }
        }
        return out
    }
}
