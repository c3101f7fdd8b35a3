import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Any error as one line a user can act on: what a run's `setupError`, `report.json` and the CLI
/// print. A Foundation file error becomes `<path>: <strerror>` — never the
/// `Error Domain=NSCocoaErrorDomain Code=640 … UserInfo={…}` dump its description is — and every
/// other error its description with line breaks folded, at most `maxCharacters` long.
package enum OneLineError {
    package static let maxCharacters = 600

    package static func describe(_ error: Error) -> String {
        let text: String
        let ns = error as NSError
        if ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain {
            let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
            let reason = String(cString: strerror(posixCode(of: error)))
            text = path.map { "\($0): \(reason)" } ?? reason
        } else {
            text = String(describing: error)
        }
        let folded = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
        return folded.count <= maxCharacters ? folded : String(folded.prefix(maxCharacters)) + "…"
    }
}
