import AppGroup
import ArgumentParser
import Foundation
import HarnessKit

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor", abstract: "Check that this machine can run the harness (exit 1 when it cannot).")

    @OptionGroup var root: DeviceRootOptions
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws {
        let path = try root.path(mustExist: false)
        let checks = Doctor.run(rootPath: path)
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try enc.encode(checks), as: UTF8.self))
        } else {
            print(Doctor.table(checks))
        }
        if checks.contains(where: { $0.status == .fail }) { throw ExitCode(1) }
    }
}
