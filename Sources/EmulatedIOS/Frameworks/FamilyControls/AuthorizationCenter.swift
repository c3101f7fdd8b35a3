import AppGroup
import Foundation
import ScreenTimeModel
import OSFiles

/// Apple's `AuthorizationCenter` (FamilyControls). The status is the OS's:
/// `system/authorization/familycontrols.json` (absent = `notDetermined`); a request is a file the
/// scripted user answers (EMULATED-IOS.md §7.4).
public final class AuthorizationCenter: @unchecked Sendable {
    /// The process's one center (inside the harness, one per stand-in launch: StandInEnvironment).
    public static var shared: AuthorizationCenter { StandInEnvironment.perIncarnation { AuthorizationCenter() } ?? processShared }
    private static let processShared = AuthorizationCenter()

    private let device: Result<EmulatedDevice, OSFileError>

    /// How long `requestAuthorization` waits for the OS: an hour of device time (a user who
    /// ignores the prompt), and never more than 10 s of real time.
    @_spi(ScreenTimeHarness) public var answerDeviceSeconds: Double = 3600
    @_spi(ScreenTimeHarness) public var answerWallCapSeconds: Double = 10

    init() { device = Result(catching: { () throws(OSFileError) -> EmulatedDevice in try EmulatedDevice.current() }) }

    @_spi(ScreenTimeHarness) public init(device: EmulatedDevice) { self.device = .success(device) }

    /// Apple's `authorizationStatus`, read from the OS each time.
    public var authorizationStatus: AuthorizationStatus {
        do { return try currentStatus().status } catch {
            EmulatedDevice.report("AuthorizationCenter.authorizationStatus", error)
            return .notDetermined
        }
    }

    /// Apple's `requestAuthorization(for:)`: returns at once when approved; otherwise asks the
    /// OS (writes `familycontrols-request.json`, posts `system.authorization.changed`) and waits,
    /// bounded, for the answer. `denied` throws `FamilyControlsError.authorizationCanceled`; no
    /// answer throws `OSFileError.noAnswer`.
    public func requestAuthorization(for member: FamilyControlsMember) async throws {
        try await withCheckedThrowingContinuation { (k: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread { [self] in
                do {
                    try self.requestAuthorizationBlocking(for: member)
                    k.resume()
                } catch {
                    k.resume(throwing: error)
                }
            }
        }
    }

    /// The same, on the calling thread (stand-ins that are not async).
    @_spi(ScreenTimeHarness) public func requestAuthorizationBlocking(for member: FamilyControlsMember) throws {
        CrashPoints.passNonThrowing("authorization:screenTime")  // a prompt is answered, never failed
        let device = try device.get()
        if try currentStatus().status == .approved { return }
        let area = try device.area(OSPaths.authorization)
        let request = AuthorizationRequestRecord(
            id: UUID().uuidString, member: member.rawValue, requestedAt: device.now(),
            requestedBy: WriterRecord(pid: device.writer.pid, process: device.writer.process))
        try area.write(request, OSPaths.familyControlsRequest, post: OSPaths.authorizationChanged)
        let answer = try AnswerWait.wait(
            for: "FamilyControls requestAuthorization(for: .\(member.rawValue))", on: device, notification: OSPaths.authorizationChanged,
            deviceSeconds: answerDeviceSeconds, wallCapSeconds: answerWallCapSeconds
        ) { () -> AuthorizationStatusRecord? in
            guard let s = try? area.read(AuthorizationStatusRecord.self, OSPaths.familyControlsStatus), s.answeredRequest == request.id else { return nil }
            return s
        }
        switch AuthorizationStatus(rawValue: answer.status) {
        case .approved?: return
        case .denied?: throw FamilyControlsError.authorizationCanceled
        default: throw OSFileError.malformed(path: "\(OSPaths.authorization)/\(OSPaths.familyControlsStatus)", reason: "answer \(answer.status) is not approved or denied")
        }
    }

    private func currentStatus() throws -> (status: AuthorizationStatus, record: AuthorizationStatusRecord?) {
        let area = try device.get().area(OSPaths.authorization)
        guard let r = try area.read(AuthorizationStatusRecord.self, OSPaths.familyControlsStatus) else { return (.notDetermined, nil) }
        guard let s = AuthorizationStatus(rawValue: r.status) else {
            throw OSFileError.malformed(path: "\(OSPaths.authorization)/\(OSPaths.familyControlsStatus)", reason: "unknown status \(r.status)")
        }
        return (s, r)
    }
}
