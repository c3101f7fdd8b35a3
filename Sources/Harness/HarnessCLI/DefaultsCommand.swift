import AppGroup
import ArgumentParser
import Foundation

/// `harness defaults read|write|delete SUITE [KEY]`: macOS's `defaults` against a device root's
/// shared defaults (PROTOCOL.md §3), through the same locked read-modify-write as every participant.
struct DefaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Read, write or delete shared defaults in a device root (like defaults(1)).",
        discussion: """
            SUITE lives in the container of app group --group (default: SUITE itself, which must then be a group id).
            The device root must exist (a live run's, or one kept with run --device-root).
            """,
        subcommands: [Read.self, Write.self, Delete.self])

    struct Target: ParsableArguments {
        @OptionGroup var root: DeviceRootOptions
        @Option(help: "The app group whose container holds the suite (default: SUITE).") var group: String?
        @Argument(help: "The suite, e.g. group.focuspledge.") var suite: String

        /// Runs `body` on the suite; a suite the read found corrupt (and moved aside, PROTOCOL.md §3) is exit 2
        /// with one line saying so — not `{}` and exit 0 as if the suite were empty (a
        /// Python-written `<integer>18446744073709551615` lost the whole suite silently).
        func withSuite<T>(_ body: (SharedDefaults) throws -> T) throws -> T {
            let d = try open()
            let before = d.container.deviceRoot.quarantineRecords().count
            let result = try body(d)
            let records = d.container.deviceRoot.quarantineRecords().dropFirst(before)
                .map { ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]) ?? [:] }
            // A key left out alone: the rest of the suite is read, and each key said (stderr).
            let leftOut = records.compactMap { ($0["reason"] as? String).flatMap { $0.hasPrefix(SharedDefaults.keyLeftOut) ? $0 : nil } }
            for reason in leftOut {
                // Written escaped by its writer (the key and value quoted); one line, no control characters.
                let line = String(String.UnicodeScalarView(reason.unicodeScalars.prefix(300).map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
                FileHandle.standardError.write(Data("note: suite \(suite): \(line) (recorded in quarantine.jsonl; PROTOCOL.md §3)\n".utf8))
            }
            if let last = records.last(where: { !(($0["reason"] as? String)?.hasPrefix(SharedDefaults.keyLeftOut) ?? false) }) {
                let reason = last["reason"] as? String ?? "not a valid suite"
                let aside = ((last["movedTo"] as? String) ?? "a .corrupt- file") as NSString
                throw InputError(
                    "suite \(suite) was not a valid suite (\(Excerpt.inner(reason))); it was moved aside to \(aside.lastPathComponent) and starts empty (PROTOCOL.md §3, §6)")
            }
            return result
        }

        func open() throws -> SharedDefaults {
            let groupId = group ?? suite
            do { try AppGroupContainer.validate(groupIdentifier: groupId) } catch {
                throw InputError(group == nil
                    ? "\(String(reflecting: suite)) is not an app group id (group.<letters, digits, . or ->); pass --group group.x for a suite of another name"
                    : "--group \(String(reflecting: groupId)): not an app group id (group.<letters, digits, . or ->)")
            }
            let path = try root.path(mustExist: true)
            let deviceRoot = try DeviceRoot(path: path, create: false)
            let container = try AppGroupContainer(deviceRoot: deviceRoot, groupIdentifier: groupId, entitlements: Entitlements(appGroups: [groupId]))
            return try SharedDefaults(container: container, suiteName: suite)
        }
    }

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the suite as JSON, or one key's value; exit 1 when the key does not exist.",
            discussion: "Strings print as they are, other values as JSON (data as base64, dates as ISO 8601).")
        @OptionGroup var target: Target
        @Argument(help: "One key (default: the whole suite).") var key: String?

        func run() throws {
            let suite = try target.withSuite { try $0.snapshot() }
            guard let key else {
                print(DefaultsText.json(.dictionary(suite)))
                return
            }
            guard let value = suite[key] else {
                HarnessExit.fail("the key \(String(reflecting: key)) does not exist in suite \(target.suite)")
                throw ExitCode(HarnessExit.violation)
            }
            if case .string(let s) = value { print(s) } else { print(DefaultsText.json(value)) }
        }
    }

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set KEY to VALUE (one atomic, locked write).")
        @OptionGroup var target: Target
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value, read as --type says.") var value: String
        @Option(help: "string, int, float, bool, date (ISO 8601), data (base64) or json (any JSON value).") var type = "string"

        func run() throws {
            let v = try DefaultsText.parse(value, type: type)
            try target.withSuite { try $0.update { $0[key] = v } }
            print("\(target.suite) \(key) = \(DefaultsText.json(v))")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove KEY (or, with --all, every key); exit 1 when KEY does not exist.")
        @OptionGroup var target: Target
        @Argument(help: "The key.") var key: String?
        @Flag(help: "Remove every key of the suite.") var all = false

        func run() throws {
            if key != nil && all { throw InputError("pass KEY or --all, not both (--all empties the whole suite)") }
            guard key != nil || all else { throw InputError("name one KEY, or pass --all to empty the suite") }
            let existed = try target.withSuite { try $0.update { suite -> Bool in
                if all {
                    suite.removeAll()
                    return true
                }
                return suite.removeValue(forKey: key!) != nil
            } }
            guard existed else {
                HarnessExit.fail("the key \(String(reflecting: key!)) does not exist in suite \(target.suite)")
                throw ExitCode(HarnessExit.violation)
            }
        }
    }
}

/// How a person types and reads property-list values.
enum DefaultsText {
    static let types = ["string", "int", "float", "bool", "date", "data", "json"]

    static func parse(_ text: String, type: String) throws -> PropertyListValue {
        func bad(_ expected: String) -> InputError { InputError("\(Excerpt.quoted(text)) is not \(expected) (--type \(type))") }
        switch type {
        case "string": return .string(text)
        case "int": guard let v = Int64(text) else { throw bad("a 64-bit integer") }; return .integer(v)
        case "float": guard let v = Double(text), v.isFinite else { throw bad("a finite number") }; return .real(v)
        case "bool":
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw bad("true or false")
            }
        case "date":
            // The one date rule every reader and writer keeps (PROTOCOL.md §3): strict, proleptic
            // Gregorian, 0001…9999 — Foundation's formatter rolled Feb 30 over and read 1582 as Julian.
            switch ISO8601Date.parse(text) {
            case .success(let d):
                guard ISO8601Date.isWritable(d) else { throw bad("a date from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z") }
                return .date(d)
            case .failure(let why): throw InputError("--type date: \(why.reason)")
            }
        case "data": guard let d = Data(base64Encoded: text) else { throw bad("base64") }; return .data(d)
        case "json":
            // Nesting first: JSONDecoder gives up at 512 levels, the suite's reader at 62.
            let depth = JSONScan.maxNesting(text)
            guard depth <= PropertyListCodec.maxValueNesting else {
                throw bad("JSON nested at most \(PropertyListCodec.maxValueNesting) levels deep (it nests \(depth); a suite nested deeper cannot be read back)")
            }
            if let big = JSONScan.integerBeyondInt64(text) {
                throw InputError("\(Excerpt.quoted(big)) in --type json does not fit a 64-bit integer (-9223372036854775808...9223372036854775807); write it as a string, or as a float with a '.' or an exponent")
            }
            guard let v = try? JSONDecoder().decode(JSONPlist.self, from: Data(text.utf8)).value else { throw bad("JSON without nulls") }
            return v
        default: throw InputError("--type \(String(reflecting: type)): use one of \(types.joined(separator: ", "))")
        }
    }

    /// A JSON value as a property-list value (no null: a plist has none).
    struct JSONPlist: Decodable {
        let value: PropertyListValue
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        init(from decoder: Decoder) throws {
            if let keyed = try? decoder.container(keyedBy: Key.self) {
                var out: [String: PropertyListValue] = [:]
                for k in keyed.allKeys { out[k.stringValue] = try keyed.decode(JSONPlist.self, forKey: k).value }
                value = .dictionary(out)
            } else if var list = try? decoder.unkeyedContainer() {
                var out: [PropertyListValue] = []
                while !list.isAtEnd { out.append(try list.decode(JSONPlist.self).value) }
                value = .array(out)
            } else {
                let c = try decoder.singleValueContainer()
                if let b = try? c.decode(Bool.self) { value = .bool(b) }
                else if let i = try? c.decode(Int64.self) { value = .integer(i) }
                else if let d = try? c.decode(Double.self) { value = .real(d) }
                else { value = .string(try c.decode(String.self)) }
            }
        }
    }

    static func json(_ v: PropertyListValue) -> String {
        switch v {
        case .string(let s): return quote(s)
        case .integer(let i): return String(i)
        case .real(let d): return d.isFinite ? String(d) : quote(String(d))
        case .bool(let b): return b ? "true" : "false"
        case .data(let d): return quote(d.base64EncodedString())
        case .date(let d): return quote(ISO8601Date.format(d))
        case .array(let a): return "[" + a.map(json).joined(separator: ", ") + "]"
        case .dictionary(let d): return "{" + d.keys.sorted().map { "\(quote($0)): \(json(d[$0]!))" }.joined(separator: ", ") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
