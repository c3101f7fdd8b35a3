import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct SharedDefaultsTests {
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
        #expect(aside.count == 1)  // ...the bad file is kept aside...
        let kept = try String(contentsOfFile: ((t.suitePath as NSString).deletingLastPathComponent) + "/" + aside[0], encoding: .utf8)
        #expect(kept == content)
        let records = t.root.quarantineRecords()  // ...and recorded.
        #expect(records.count == 1)
        #expect(records.first?.contains("Library/Preferences/\(TestRoot.group).plist") == true)
        // And the suite works again.
        fresh.set(2, forKey: "a")
        #expect(try t.defaults().integer(forKey: "a") == 2)
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

    @Test func entitlementsGateContainers() throws {
        let t = try TestRoot()
        let env = AppGroupEnvironment(deviceRoot: t.root, entitlements: Entitlements(appGroups: ["group.a"]))
        #expect(env.containerURL(forSecurityApplicationGroupIdentifier: "group.a") != nil)
        #expect(env.containerURL(forSecurityApplicationGroupIdentifier: "group.b") == nil)
        #expect(throws: AppGroupError.notEntitled(groupIdentifier: "group.b")) { _ = try env.container("group.b") }
        #expect(Entitlements.fromEnvironment(["APP_GROUPS": "group.a, group.b,"]).appGroups == ["group.a", "group.b"])
        for bad in ["group../x", "group.a/b", "notagroup", "group."] {
            #expect(throws: AppGroupError.self) {
                _ = try AppGroupContainer(deviceRoot: t.root, groupIdentifier: bad, entitlements: Entitlements(appGroups: [bad]))
            }
        }
        for bad in ["../x", ".hidden", "a/b", ""] {
            #expect(throws: AppGroupError.invalidSuiteName(bad)) { _ = try SharedDefaults(container: t.container(), suiteName: bad) }
        }
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
