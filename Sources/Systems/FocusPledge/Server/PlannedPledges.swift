import FocusPledge
import Foundation

/// The pledges the user will start, as the run's plan lists them (`schedule.json`'s `sessions`).
///
/// Seed 000 presumes a pledge exists server-side before the native session starts (its diagram:
/// "Session UI: Start pledge → Call startSession()", a call it never shows), so neither variant's
/// host creates one. The server stands in for that: it creates every planned pledge, once, as of
/// its planned start (pack README, assumption A1).
public struct PlannedPledges: Sendable, Equatable {
    public struct Pledge: Sendable, Equatable {
        public var sessionId: String
        /// Device seconds after the clock's start.
        public var startOffsetSeconds: Double
        public var durationMinutes: Int
    }

    public var pledges: [Pledge]

    /// Bound on the file read (a plan of 10,000 sessions is far below).
    public static let maxFileBytes = 16 << 20

    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(pledges: [Pledge]) { self.pledges = pledges }

    /// Reads `sessions` ([{sessionId, startDeviceOffsetSeconds, durationMinutes}]) of a plan file.
    public static func read(path: String) throws(ReadError) -> PlannedPledges {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ReadError(description: "--pledges \(path): cannot open") }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: maxFileBytes + 1) ?? Data() } catch {
            throw ReadError(description: "--pledges \(path): \(error)")
        }
        guard data.count <= maxFileBytes else { throw ReadError(description: "--pledges \(path): larger than \(maxFileBytes) bytes") }
        return try parse(data, path: path)
    }

    /// The one part of the plan file the server reads. `JSONSerialization` built every object of
    /// the plan, ~10 ms per server start on a 24-hour plan, and a virtual-time run restarts the
    /// server ~100 times (`harness bench time`); `JSONDecoder` of the whole file still parsed all
    /// of it (~1.5 ms); now only this member is decoded (`JSONMemberScan`).
    struct File: Decodable {
        struct Session: Decodable {
            var sessionId: String?
            var startDeviceOffsetSeconds: Double?
            var durationMinutes: Int?
        }
        var sessions: [Session]?
    }

    static func parse(_ data: Data, path: String) throws(ReadError) -> PlannedPledges {
        let sessions: [File.Session]?
        let bytes = [UInt8](data)
        // Only `sessions` decoded, when the scan finds it in a valid document (JSONMemberScan.swift);
        // anything else — including sessions that do not decode — takes the whole-file path, which
        // says what is wrong.
        if let range = JSONMemberScan.valueRange(ofKey: "sessions", in: bytes),
            let list = try? JSONDecoder().decode([File.Session]?.self, from: Data(bytes[range]))
        {
            sessions = list
        } else {
            do { sessions = try JSONDecoder().decode(File.self, from: data).sessions } catch {
                throw ReadError(description: "--pledges \(path): not a plan file (\(oneLine(error)))")
            }
        }
        guard let sessions else {
            throw ReadError(description: "--pledges \(path): no \"sessions\" list (is it a FocusPledge schedule.json?)")
        }
        var out: [Pledge] = []
        for (i, s) in sessions.enumerated() {
            guard let id = s.sessionId, let offset = s.startDeviceOffsetSeconds, let minutes = s.durationMinutes,
                offset.isFinite, offset >= 0, minutes > 0
            else {
                throw ReadError(description: "--pledges \(path): sessions[\(i)] needs sessionId, startDeviceOffsetSeconds >= 0 and durationMinutes > 0")
            }
            out.append(Pledge(sessionId: id, startOffsetSeconds: offset, durationMinutes: minutes))
        }
        return PlannedPledges(pledges: out)
    }

    /// The device time the plan's offsets count from. A ledger that already holds a planned pledge
    /// says it (its creation time minus its offset: restarts agree with the first start);
    /// otherwise it is `now`: the clock's anchor at a fixed rate (the run's start, `pledgesOrigin`), or the
    /// server's first start under stepped time, which stands still until the server is idle.
    public func clockStart(ledger: SettlementLedger, now: Date) -> Date {
        for p in pledges {
            if let s = ledger.session(p.sessionId) {
                return Date(timeIntervalSince1970: Double(s.createdAtUnixMillis) / 1000 - p.startOffsetSeconds)
            }
        }
        return now
    }
}
