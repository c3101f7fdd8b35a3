import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.timeLimit(.minutes(3))) struct SharedDefaultsTests {
    @Test func roundTripsEveryPropertyListType() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        let date = Date(timeIntervalSince1970: 1_771_300_000)
        d.set("abc <&> \"q\"", forKey: "s")
        d.set(42, forKey: "i")
        d.set(2.5, forKey: "r")
        d.set(true, forKey: "b")
        d.set(Data([0, 1, 2, 255]), forKey: "data")
        d.set(date, forKey: "date")
        d.set(["x", 1, false] as [Any], forKey: "arr")
        d.set(["k": "v", "n": 3] as [String: Any], forKey: "dict")
        // A second instance has its own cache: it must read everything back from the file.
        let e = try t.defaults()
        #expect(e.string(forKey: "s") == "abc <&> \"q\"")
        #expect(e.integer(forKey: "i") == 42)
        #expect(e.double(forKey: "r") == 2.5)
        #expect(e.bool(forKey: "b") == true)
        #expect(e.data(forKey: "data") == Data([0, 1, 2, 255]))
        #expect(e.object(forKey: "date") as? Date == date)
        #expect(e.array(forKey: "arr")?.count == 3)
        #expect(e.dictionary(forKey: "dict")?["n"] as? Int == 3)
        e.removeObject(forKey: "s")
        #expect(d.string(forKey: "s") == nil)
        #expect(d.object(forKey: "missing") == nil)
        #expect(d.integer(forKey: "missing") == 0)
    }

    @Test func registeredDefaultsAreFallbacksOnly() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        d.register(defaults: ["clarity_score": 100, "level": "npc"])
        d.set(55, forKey: "clarity_score")
        #expect(d.integer(forKey: "clarity_score") == 55)
        #expect(d.string(forKey: "level") == "npc")
        let rep = d.dictionaryRepresentation()
        #expect(rep["clarity_score"] as? Int == 55 && rep["level"] as? String == "npc")
        // Registration is per process: another instance does not see it.
        #expect(try t.defaults().string(forKey: "level") == nil)
        #expect(d.synchronize())
    }

    @Test func multiKeyWriteLandsTogether() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        try d.setValues(["a": 1, "b": 2, "gone": "x"])
        try d.setValues(["a": 10, "b": 20, "gone": nil])
        let snap = try t.defaults().snapshot()
        #expect(snap == ["a": .integer(10), "b": .integer(20)])
        // A throwing body changes nothing.
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try d.update { s in
                s["a"] = .integer(99)
                throw Boom()
            }
        }
        #expect(try t.defaults().snapshot()["a"] == .integer(10))
    }

    @Test func fileIsAPlistOtherLanguagesRead() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        try d.setValues(["focuspledge_active_session_id": "s-1", "focuspledge_session_failed": false, "n": 7])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: t.suitePath))
        let parsed = try PropertyListSerialization.propertyList(from: bytes, options: [], format: nil) as? [String: Any]
        #expect(parsed?["focuspledge_active_session_id"] as? String == "s-1")
        #expect(parsed?.count == 3)
    }

    @Test func filesAre0600AndDirectories0700() throws {
        let t = try TestRoot()
        try t.defaults().set(1, forKey: "x")
        var st = stat()
        #expect(stat(t.suitePath, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(stat("\(t.path)/containers/\(TestRoot.group)", &st) == 0)
        #expect(st.st_mode & 0o777 == 0o700)
    }

    /// The clock file is one of the device root's files, 0600 like the rest (PROTOCOL.md §1).
    @Test func theClockFileIs0600() throws {
        let t = try TestRoot()
        _ = try DeviceClock.write(.stepped(at: 1_771_315_200, timeZone: "UTC"), to: t.root)
        var st = stat()
        #expect(stat(t.path + "/clock", &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
    }

    /// A value nested deeper than every reader parses made the whole suite quarantined
    /// at the next read (`defaults write --type json` 2000 levels deep). It is refused, the suite kept.
    @Test func aValueNestedDeeperThanReadersParseIsRefusedAndTheSuiteKept() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        d.set("kept", forKey: "other")
        func nested(_ levels: Int) -> PropertyListValue {
            var v = PropertyListValue.integer(1)
            for _ in 0..<levels { v = .array([v]) }
            return v
        }
        let limit = PropertyListCodec.maxValueNesting
        try d.update { $0["deep"] = nested(limit) }
        #expect(try t.defaults().dictionaryRepresentation()["deep"] != nil, "a value at the limit must read back")
        #expect(throws: AppGroupError.valueTooDeep(key: "deeper", nesting: limit + 1, limit: limit)) {
            try d.update { $0["deeper"] = nested(limit + 1) }
        }
        let fresh = try t.defaults()
        #expect(fresh.string(forKey: "other") == "kept")
        #expect(fresh.object(forKey: "deeper") == nil)
    }

    /// A key whose value is no value of its type — a date outside 0001…9999, an integer outside 64
    /// bits, deep inside an array too — is left out alone (PROTOCOL.md §3): the rest of the suite
    /// reads, each bad key is recorded, and the next write drops it from the file.
    @Test func oneBadKeyIsLeftOutAloneAndTheRestReads() throws {
        let t = try TestRoot()
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
            <key>kept</key><string>x</string>
            <key>when</key><date>10000-01-01T00:00:00Z</date>
            <key>streak</key><integer>7</integer>
            <key>list</key><array><integer>1</integer><integer>99999999999999999999</integer></array>
            </dict></plist>
            """
        _ = try t.defaults()  // makes the suite's directory
        try Data(plist.utf8).write(to: URL(fileURLWithPath: t.suitePath))
        let d = try t.defaults()
        #expect(d.string(forKey: "kept") == "x")
        #expect(d.integer(forKey: "streak") == 7)
        #expect(d.object(forKey: "when") == nil && d.object(forKey: "list") == nil)
        let records = t.root.quarantineRecords()
        #expect(records.count == 2, "\(records)")
        #expect(records.allSatisfy { $0.contains(SharedDefaults.keyLeftOut) }, "\(records)")
        #expect(records.contains { $0.contains("\\\"when\\\": bad date") }, "\(records)")
        #expect(records.contains { $0.contains("\\\"list\\\": bad integer") }, "\(records)")
        let names = try FileManager.default.contentsOfDirectory(atPath: PathText.directory(of: t.suitePath))
        #expect(!names.contains { $0.contains(".corrupt-") }, "the file is not moved aside")
        // A write drops the bad keys from the file; nothing more is recorded.
        d.set(8, forKey: "streak")
        let text = try String(contentsOfFile: t.suitePath, encoding: .utf8)
        #expect(!text.contains("10000-01-01") && text.contains("<string>x</string>"), "\(text)")
        #expect(try t.defaults().integer(forKey: "streak") == 8)
        #expect(t.root.quarantineRecords().count == 2)
        // The strict decoder still refuses such a file whole.
        #expect(throws: PropertyListCodec.Malformed.self) { _ = try PropertyListCodec.decodeDictionary(Array(plist.utf8)) }
    }

    @Test(arguments: ["garbage", "", "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>a</key><integer>1</integer>"])
    func corruptOrTruncatedSuiteIsQuarantined(content: String) throws {
        let t = try TestRoot()
        let d = try t.defaults()
        d.set(1, forKey: "a")
        // Plant bad content the way a buggy or hostile process would: in place.
        try Data(content.utf8).write(to: URL(fileURLWithPath: t.suitePath))
        let fresh = try t.defaults()
        #expect(fresh.object(forKey: "a") == nil)  // suite starts empty...
        let names = try FileManager.default.contentsOfDirectory(atPath: (t.suitePath as NSString).deletingLastPathComponent)
        let aside = names.filter { $0.hasPrefix("\(TestRoot.group).plist.corrupt-") }
        try #require(aside.count == 1)  // ...the bad file is kept aside...
        let kept = try String(contentsOfFile: ((t.suitePath as NSString).deletingLastPathComponent) + "/" + aside[0], encoding: .utf8)
        #expect(kept == content)
        let records = t.root.quarantineRecords()  // ...and recorded.
        #expect(records.count == 1)
        #expect(records.first?.contains("Library/Preferences/\(TestRoot.group).plist") == true)
        // And the suite works again.
        fresh.set(2, forKey: "a")
        #expect(try t.defaults().integer(forKey: "a") == 2)
    }

    /// A suite file over `maxSuiteBytes` (another writer's) is not read at all: quarantined like a
    /// corrupt one, even when it is a perfectly valid plist whose every value is within the value
    /// limit (so only the read's own bound can catch it).
    @Test func suiteFileOverTheReadLimitIsQuarantined() throws {
        let t = try TestRoot()
        try t.defaults().set(1, forKey: "a")
        let valueBytes = SharedDefaults.maxValueBytes / 2
        let values = SharedDefaults.maxSuiteBytes / valueBytes + 1
        var plist = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>"#.utf8)
        for i in 0..<values {
            plist += Array("<key>v\(i)</key><string>".utf8)
            plist += [UInt8](repeating: UInt8(ascii: "x"), count: valueBytes)
            plist += Array("</string>".utf8)
        }
        plist += Array("</dict></plist>\n".utf8)
        try #require(plist.count > SharedDefaults.maxSuiteBytes)
        try Data(plist).write(to: URL(fileURLWithPath: t.suitePath))
        let fresh = try t.defaults()
        #expect(fresh.object(forKey: "v0") == nil)
        #expect(fresh.object(forKey: "a") == nil)
        let records = t.root.quarantineRecords()
        try #require(records.count == 1)
        #expect(records[0].contains("\(SharedDefaults.maxSuiteBytes)-byte limit"), "\(records[0])")
    }

    /// PROTOCOL.md §3: every write increments the little-endian counter at offset 0 of
    /// `<suite>.plist.lock`. Readers in every process trust their cache while (generation, inode,
    /// size, mtime, ctime) is unchanged; where timestamps are coarse and inodes are reused (ext4),
    /// two same-size writes in one tick differ in the generation only — so a write that forgets to
    /// bump it leaves other processes serving the old values.
    @Test func everyWriteBumpsTheGenerationInTheLockFile() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        func generation() throws -> UInt64 {
            let bytes = try #require(FileManager.default.contents(atPath: t.suitePath + ".lock"))
            guard bytes.count >= 8 else { return 0 }
            return bytes.prefix(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        #expect(try generation() == 0)
        d.set(1, forKey: "a")
        #expect(try generation() == 1)
        try d.setValues(["a": 2, "b": 3])  // one multi-key write: one bump
        #expect(try generation() == 2)
        d.set(2, forKey: "a")  // nothing changes: nothing written
        #expect(try generation() == 2)
        d.removeObject(forKey: "b")
        #expect(try generation() == 3)
        #expect(try t.defaults().snapshot() == ["a": .integer(2)])
    }

    @Test func plantedSymlinkIsAClearError() throws {
        let t = try TestRoot()
        let target = t.path + "-outside"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: target) }
        try FileManager.default.createDirectory(atPath: "\(t.path)/containers/\(TestRoot.group)", withIntermediateDirectories: true)
        #expect(symlink(target, "\(t.path)/containers/\(TestRoot.group)/Library") == 0)
        #expect(throws: AppGroupError.symlinkRefused(path: "\(t.path)/containers/\(TestRoot.group)/Library")) {
            _ = try t.defaults()
        }
        // The suite file itself as a symlink: not a regular file, so quarantined (moved aside as
        // a link), never followed (ProtocolEdgeTests covers the rule for every kind of file).
        let t2 = try TestRoot()
        let d = try t2.defaults()
        d.set(1, forKey: "a")
        try FileManager.default.removeItem(atPath: t2.suitePath)
        #expect(symlink("/etc/passwd", t2.suitePath) == 0)
        #expect(try t2.defaults().snapshot().isEmpty)
        #expect(t2.root.quarantineRecords().first?.contains("a symbolic link") == true)
        #expect(FileManager.default.contents(atPath: target + "/x") == nil)
    }

    @Test func oversizeValueIsRefused() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        let big = Data(repeating: 1, count: SharedDefaults.maxValueBytes)
        #expect(throws: AppGroupError.self) { try d.store(big, forKey: "big") }
        do {
            try d.store(big, forKey: "big")
        } catch let e as AppGroupError {
            #expect("\(e)".contains("the limit is \(SharedDefaults.maxValueBytes) bytes"))
        }
        #expect(d.data(forKey: "big") == nil)
        // The non-throwing setter reports instead of crashing.
        let reported = Box<AppGroupError>()
        d.onError = { reported.append($0) }
        d.set(big, forKey: "big")
        #expect(reported.count == 1)
        #expect(throws: AppGroupError.self) { try d.store(NSObject(), forKey: "obj") }
    }

    /// Each value under 512 KiB, together over the 4 MiB suite bound: refused, nothing written.
    @Test func oversizeSuiteIsRefused() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        d.set(1, forKey: "kept")
        let chunk = Data(repeating: 7, count: 380_000)  // 506,668 bytes of base64: under 512 KiB
        var values: [String: Any?] = [:]
        for i in 0..<9 { values["k\(i)"] = chunk }
        #expect {
            try d.setValues(values)
        } throws: { error in
            guard case .suiteTooLarge(_, let bytes, let limit)? = error as? AppGroupError else { return false }
            return bytes > limit && limit == SharedDefaults.maxSuiteBytes
        }
        #expect(try t.defaults().snapshot() == ["kept": .integer(1)])
        // Just under the bound is fine.
        values.removeValue(forKey: "k8")
        try d.setValues(values)
        #expect(try d.snapshot().count == 9)
    }

    @Test func entitlementsGateContainers() throws {
        let t = try TestRoot()
        let env = AppGroupEnvironment(deviceRoot: t.root, entitlements: Entitlements(appGroups: ["group.a"]))
        #expect(env.containerURL(forSecurityApplicationGroupIdentifier: "group.a") != nil)
        #expect(env.containerURL(forSecurityApplicationGroupIdentifier: "group.b") == nil)
        #expect(throws: AppGroupError.notEntitled(groupIdentifier: "group.b")) { _ = try env.container("group.b") }
        #expect(Entitlements.fromEnvironment(["APP_GROUPS": "group.a, group.b,"]).appGroups == ["group.a", "group.b"])
        for bad in ["group../x", "group.a/b", "notagroup", "group.", "group.a..b", "group.a b"] {
            #expect(throws: AppGroupError.self) {
                _ = try AppGroupContainer(deviceRoot: t.root, groupIdentifier: bad, entitlements: Entitlements(appGroups: [bad]))
            }
        }
        for bad in ["../x", ".hidden", "a/b", ""] {
            #expect(throws: AppGroupError.invalidSuiteName(bad)) { _ = try SharedDefaults(container: t.container(), suiteName: bad) }
        }
    }

    /// PROTOCOL.md §1: components are never empty, `.`, `..`, or contain `/` or NUL.
    @Test func pathComponentsAreValidated() throws {
        let t = try TestRoot()
        for bad in ["", ".", "..", "a/b", "a\u{0}b", String(repeating: "x", count: 256)] {
            #expect(throws: AppGroupError.invalidComponent(bad)) { try SafeDirectory.validate(component: bad) }
        }
        try SafeDirectory.validate(component: String(repeating: "x", count: 255))
        try SafeDirectory.validate(component: "..x")
        #expect(throws: AppGroupError.invalidComponent("..")) { _ = try t.root.subdirectory("containers/../..") }
        #expect(throws: AppGroupError.invalidComponent(".")) { _ = try t.root.subdirectory("containers/./x") }
        #expect(!FileManager.default.fileExists(atPath: t.path + "/containers/x"))
    }

    @Test func codecRejectsWhatItDoesNotUnderstand() throws {
        let ok = PropertyListCodec.encode(["k": .array([.integer(1), .dictionary([:]), .string("")])])
        #expect(try PropertyListCodec.decodeDictionary(ok) == ["k": .array([.integer(1), .dictionary([:]), .string("")])])
        for bad in ["<plist><dict><key>a</key><foo/></dict></plist>", "<plist><array/></plist>", "<plist><dict></plist>",
                    "<plist><dict/></plist>trailing", "<plist><dict><key>a</key><integer>x</integer></dict></plist>"] {
            #expect(throws: PropertyListCodec.Malformed.self) { _ = try PropertyListCodec.decodeDictionary(Array(bad.utf8)) }
        }
    }
}
