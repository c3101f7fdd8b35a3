import AppGroup

/// Whether a failpoint's label can ever pass in a system, from the label and the system's
/// descriptor alone (CRASH-POINTS.md §11): a label is matched whole, so one that no crash point of
/// the system can spell arms nothing in every run — an error before anything runs, not a PASS
/// that tested nothing. What depends on the run (an activity's name, a session id) is not judged
/// here; a label that the run never passes is reported after it.
package enum FailpointReach {
    /// The kinds whose label always carries a detail (`kind:detail`), and those that never do.
    static let kindsWithDetail: Set<String> = [
        "defaults", "post", "heartbeat", "shield", "shield.clear", "monitoring.start", "monitoring.stop", "notification.add",
        "authorization", "http.send", "http.reply", "step", "account", "appStore", "application", "cellular", "dateAndTime",
        "gameCenter", "media", "passcode", "safari", "siri", "webContent",
    ]
    static let kindsWithoutDetail: Set<String> = ["notifications.remove", "notifications.categories", "badge", "respond"]
    /// `authorization:<kind>`: the two prompts an app can be shown.
    static let authorizationKinds = ["screenTime", "notifications"]

    /// The problem with `point` in `descriptor`'s system, at a 0-based offset of its label, or nil.
    package static func problem(_ point: Failpoint, in descriptor: SystemDescriptor) -> Failpoint.ParseError? {
        let parts = point.label.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2 else { return nil }
        let (process, kind) = (parts[0], parts[1])
        let detail = parts.count > 2 ? parts[2] : nil
        let detailOffset = process.count + kind.count + 2
        func never(_ offset: Int, _ why: String) -> Failpoint.ParseError {
            Failpoint.ParseError(offset: offset, message: "\(why): no run of \(descriptor.id) passes this label, so it would arm nothing")
        }
        if detail == nil, kindsWithDetail.contains(kind) {
            return never(point.label.count, "a '\(kind)' crash point's label ends in its detail (\(kind):…, CRASH-POINTS.md §11)")
        }
        if detail != nil, kindsWithoutDetail.contains(kind) {
            return never(process.count + kind.count + 1, "a '\(kind)' crash point has no detail after its kind")
        }
        if kind == "respond", let role = descriptor.roles.first(where: { $0.name == process }), role.lifetime != .extension(.shieldAction) {
            return never(0, "only a shield-action extension answers a shield (respond); \(process) is \(role.lifetime)")
        }
        guard let detail else { return nil }
        switch kind {
        case "authorization" where !authorizationKinds.contains(detail):
            return never(detailOffset, "authorization's detail is the prompt, \(authorizationKinds.joined(separator: " or "))")
        case "defaults":
            guard let slash = detail.firstIndex(of: "/") else {
                return never(detailOffset, "a defaults label is defaults:<suite>/<keys>")
            }
            let suite = String(detail[..<slash])
            if suite.hasPrefix("group."), !descriptor.appGroups.contains(suite) {
                let groups = descriptor.appGroups.isEmpty ? "none" : descriptor.appGroups.joined(separator: ", ")
                return never(detailOffset, "\(Excerpt.quoted(suite)) is not an App Group of the system (its App Groups: \(groups))")
            }
            if detail[detail.index(after: slash)...].isEmpty {
                return never(detailOffset + suite.count + 1, "a defaults label names the keys a write changed after the suite")
            }
            // Not judged: whether the keys are written sorted — a key may itself hold a comma.
        case "http.send", "http.reply":
            let service = String(detail.prefix { $0 != " " })
            let servers = descriptor.roles.filter { $0.lifetime == .server }.map(\.name)
            if !servers.contains(service) {
                let named = servers.isEmpty ? "it has none" : "its servers: " + servers.joined(separator: ", ")
                return never(detailOffset, "\(Excerpt.quoted(service)) is not a server of the system (\(named)); the detail is <server> <method> <path>")
            }
        default:
            break
        }
        return nil
    }
}
