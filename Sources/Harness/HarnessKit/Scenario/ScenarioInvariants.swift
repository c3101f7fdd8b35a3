import AppGroup
import Yams

extension NodeReader {
    /// `invariants:` — promises judged by the core from the history (`DeclaredInvariant`). A rule
    /// that can never apply to the system (a process it does not have, a chance role that is no
    /// app, a name one of the system's own invariants already has) is an error at its key.
    func declaredInvariants(_ node: Node, descriptor: SystemDescriptor) throws(ScenarioError) -> [DeclaredInvariant] {
        let items = try list(node, "invariants", expected: "a list of invariants, each `- name: …` with `follows:`, `never:` or `once:`")
        var out: [DeclaredInvariant] = []
        var names = Set(descriptor.invariants.map(\.name))
        let processes = descriptor.roles.map(\.name) + ["harness"]
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        for (i, item) in items.enumerated() {
            let path = "invariants[\(i)]"
            let f = try fields(item, path: path, allowed: ["name", "follows", "never", "once"])
            let nameNode = try f.required("name")
            let name = try string(nameNode, path + ".name")
            guard !name.isEmpty, name.count <= 80, name.allSatisfy({ nameCharacters.contains($0) }) else {
                throw error(nameNode, "\(path).name: \(Excerpt.quoted(name)) must be 1...80 characters of a-z 0-9 -")
            }
            guard names.insert(name).inserted else {
                throw error(nameNode, "\(path).name: \(Excerpt.quoted(name)) is already an invariant of \(descriptor.id) or of this list; name it differently")
            }
            func match(_ node: Node, _ path: String, sameValue: Bool = false) throws(ScenarioError) -> DeclaredInvariant.Match {
                let m = try fields(node, path: path, allowed: ["process", "write", "event", "field", "log"] + (sameValue ? ["sameValue"] : []))
                let processNode = try m.required("process")
                let process = try string(processNode, path + ".process")
                guard processes.contains(process) else {
                    throw error(processNode, "\(path).process: \(descriptor.id) has no process \(Excerpt.quoted(process)); it has: \(processes.joined(separator: ", "))")
                }
                let kinds = ["write", "event", "log"].filter { m[$0] != nil }
                guard kinds.count == 1 else {
                    throw error(node, "\(path): name exactly one of write (an App Group key), event (a trace event) or log (text in a log message)")
                }
                var result = DeclaredInvariant.Match(process: process)
                if let n = m["write"] { result.write = try nonEmpty(n, path + ".write") }
                if let n = m["event"] { result.event = try nonEmpty(n, path + ".event") }
                if let n = m["log"] { result.log = try nonEmpty(n, path + ".log") }
                if let n = m["field"] {
                    guard result.event != nil else { throw error(n, "\(path).field: only an event has fields (a write's value is its key's)") }
                    result.field = try nonEmpty(n, path + ".field")
                }
                return result
            }
            let kinds = ["follows", "never", "once"].filter { f[$0] != nil }
            guard kinds.count == 1 else {
                throw error(item, "\(path): give exactly one of follows (every A is followed by B), never (A never happens) or once (no value of A twice)")
            }
            if let once = f["once"] {
                let m = try match(once, path + ".once")
                guard m.write != nil || m.field != nil else {
                    throw error(once, "\(path).once: needs a value to count (a write, or an event's field)")
                }
                out.append(DeclaredInvariant(name: name, once: m))
                continue
            }
            switch (f["follows"], f["never"]) {
            case (let follows?, nil):
                let p = path + ".follows"
                let g = try fields(follows, path: p, allowed: ["when", "then", "sameValue", "chance", "withinSeconds"])
                let thenNode = try g.required("then")
                var rule = DeclaredInvariant.Follows(when: try match(try g.required("when"), p + ".when"), then: try match(thenNode, p + ".then", sameValue: true))
                // `sameValue` reads naturally on `then` ({ process: host, write: won, sameValue: true }) or on `follows`.
                let thenSame = (try? fields(thenNode, path: p + ".then", allowed: nil))?["sameValue"]
                if thenSame != nil, g["sameValue"] != nil { throw error(thenSame, "\(p).then.sameValue: given twice (here and in follows); keep one") }
                if let n = g["sameValue"] ?? thenSame {
                    rule.sameValue = try bool(n, p + ".sameValue")
                    if rule.sameValue, rule.when.write == nil && rule.when.field == nil || rule.then.write == nil && rule.then.field == nil {
                        throw error(n, "\(p).sameValue: both when and then need a value (a write, or an event's field)")
                    }
                }
                if let n = g["chance"] {
                    let role = try string(n, p + ".chance")
                    guard descriptor.role(role)?.lifetime == .app else {
                        let apps = descriptor.roles.filter { $0.lifetime == .app }.map(\.name)
                        throw error(n, "\(p).chance: \(Excerpt.quoted(role)) is not an app of \(descriptor.id) (only an app launches or comes to the foreground); apps: \(apps.joined(separator: ", "))")
                    }
                    rule.chance = role
                }
                if let n = g["withinSeconds"] { rule.withinSeconds = try positiveDouble(n, p + ".withinSeconds", maximum: 366 * 86_400) }
                out.append(DeclaredInvariant(name: name, follows: rule))
            case (nil, let never?):
                out.append(DeclaredInvariant(name: name, never: try match(never, path + ".never")))
            default:
                throw error(item, "\(path): give exactly one of follows (every A is followed by B) or never (A never happens)")
            }
        }
        return out
    }

    private func nonEmpty(_ node: Node, _ path: String) throws(ScenarioError) -> String {
        let s = try string(node, path)
        guard !s.isEmpty, s.count <= 200 else { throw error(node, "\(path): must be 1...200 characters") }
        return s
    }
}
