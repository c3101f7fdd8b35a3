import AppGroup
@testable import FocusPledge
import Foundation
import Testing

/// The shortcuts a virtual-time day's profile asked for answer as what they replaced.
@Suite(.timeLimit(.minutes(1))) struct WireAndStorageCacheTests {
    /// A session id's path segment: unreserved characters go as they are, anything else through
    /// Foundation's percent-encoding with "/" escaped — the same as before the shortcut.
    @Test func aPathSegmentIsEscapedAsFoundationWould() {
        func reference(_ s: String) -> String {
            var allowed = CharacterSet.urlPathAllowed
            allowed.remove(charactersIn: "/")
            return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
        }
        var g = SystemRandomNumberGenerator()
        let alphabet = Array("abcXYZ019-._~ /?#%+:@!$&'()*,;=[]é😀\u{301}\t")
        var samples = ["s-1-28", "", "a/b", "x y", "%41", "ünïcødé", "../..", "~user"]
        for _ in 0..<2000 { samples.append(String((0..<Int.random(in: 0...12, using: &g)).map { _ in alphabet.randomElement(using: &g)! })) }
        for s in samples { #expect(SettlementCall.escape(s) == reference(s), "\(s.debugDescription)") }
        #expect(SettlementCall.heartbeat(sessionId: "a/b c").http.path == "/sessions/a%2Fb%20c/heartbeat")
    }

    /// A remembered record is the one its bytes decode to; other bytes decode afresh, and bytes
    /// that do not decode stay nil.
    @Test func aRememberedRecordIsTheOneItsBytesDecodeTo() {
        func record(_ id: String, end: Double) -> PropertyListValue {
            .data(Data("{\"endTime\":\(end),\"sessionId\":\"\(id)\",\"startTime\":1000}".utf8))
        }
        let a = [FocusPledgeKeys.sessionRecord: record("s1", end: 2000)]
        let b = [FocusPledgeKeys.sessionRecord: record("s2", end: 3000)]
        #expect(AppGroupStorage.activeSession(a)?.sessionId == "s1")
        #expect(AppGroupStorage.activeSession(a)?.endTime == Date(timeIntervalSince1970: 2000), "again, from the memo")
        #expect(AppGroupStorage.activeSession(b)?.sessionId == "s2")
        #expect(AppGroupStorage.activeSession(b)?.endTime == Date(timeIntervalSince1970: 3000))
        #expect(AppGroupStorage.activeSession(a)?.sessionId == "s1", "back to the first bytes")
        let garbage = [FocusPledgeKeys.sessionRecord: PropertyListValue.data(Data("{\"sessionId\":".utf8))]
        #expect(AppGroupStorage.activeSession(garbage) == nil)
        #expect(AppGroupStorage.activeSession(garbage) == nil, "an undecodable record stays undecodable")
        #expect(AppGroupStorage.activeSessionId(a) == "s1", "another reader of the same type")
    }
}
