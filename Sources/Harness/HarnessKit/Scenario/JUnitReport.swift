import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `junit.xml` for CI: one `<testsuite>` (the run), one `<testcase>` per check. The format is the
/// de-facto one Jenkins, GitLab and GitHub reporters read; counts in the suite's attributes are
/// computed from the cases, never passed in, so they cannot disagree.
package struct JUnitReport: Sendable, Equatable {
    package var suiteName: String
    /// ISO 8601, e.g. from the run's start; left out when nil (keeps golden files stable).
    package var timestamp: String?
    /// Suite-level facts worth seeing in CI: seed, variant, scenario.
    package var properties: [Property]
    package var testCases: [TestCase]

    package init(suiteName: String, timestamp: String? = nil, properties: [Property] = [], testCases: [TestCase] = []) {
        self.suiteName = suiteName
        self.timestamp = timestamp
        self.properties = properties
        self.testCases = testCases
    }

    package struct Property: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package struct TestCase: Sendable, Equatable {
        package var name: String
        package var classname: String
        package var timeSeconds: Double
        package var failure: Failure?
        package var systemOut: String?

        package init(name: String, classname: String, timeSeconds: Double, failure: Failure? = nil, systemOut: String? = nil) {
            self.name = name
            self.classname = classname
            self.timeSeconds = timeSeconds
            self.failure = failure
            self.systemOut = systemOut
        }
    }

    package struct Failure: Sendable, Equatable {
        /// What CI dashboards count it as: only a `failure` is the app's; a run that could not be
        /// decided (interrupted, tampered, a setup error) is an `error`, one that had nothing to
        /// test (a crash point never reached) is `skipped`.
        package enum Kind: String, Sendable, Equatable {
            case failure, error, skipped
        }

        package var kind: Kind
        /// One line, shown in CI summaries.
        package var message: String
        /// The details: the offending history lines, expected vs. found.
        package var text: String
        /// The `type` attribute (`failure`, `undecided`, `interrupted`, `tampered`, …).
        package var type: String

        package init(_ kind: Kind = .failure, message: String, text: String = "", type: String? = nil) {
            self.kind = kind
            self.message = message
            self.text = text
            self.type = type ?? kind.rawValue
        }
    }

    package var testCount: Int { testCases.count }
    package var failureCount: Int { count(.failure) }
    package var errorCount: Int { count(.error) }
    package var skippedCount: Int { count(.skipped) }
    func count(_ kind: Failure.Kind) -> Int { testCases.filter { $0.failure?.kind == kind }.count }
    package var totalTimeSeconds: Double { testCases.reduce(0) { $0 + max(0, $1.timeSeconds) } }

    package func xml() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuite name=\"\(Self.escapeAttribute(suiteName))\" tests=\"\(testCount)\""
        out += " failures=\"\(failureCount)\" errors=\"\(errorCount)\" skipped=\"\(skippedCount)\" time=\"\(Self.formatSeconds(totalTimeSeconds))\""
        if let timestamp { out += " timestamp=\"\(Self.escapeAttribute(timestamp))\"" }
        out += ">\n"
        if !properties.isEmpty {
            out += "  <properties>\n"
            for property in properties {
                out += "    <property name=\"\(Self.escapeAttribute(property.name))\" value=\"\(Self.escapeAttribute(property.value))\"/>\n"
            }
            out += "  </properties>\n"
        }
        for testCase in testCases {
            out += "  <testcase name=\"\(Self.escapeAttribute(testCase.name))\""
            out += " classname=\"\(Self.escapeAttribute(testCase.classname))\" time=\"\(Self.formatSeconds(testCase.timeSeconds))\""
            guard testCase.failure != nil || testCase.systemOut != nil else {
                out += "/>\n"
                continue
            }
            out += ">\n"
            if let failure = testCase.failure {
                let element = failure.kind.rawValue
                out += "    <\(element) message=\"\(Self.escapeAttribute(failure.message))\" type=\"\(Self.escapeAttribute(failure.type))\">"
                out += Self.escapeText(failure.text)
                out += "</\(element)>\n"
            }
            if let systemOut = testCase.systemOut {
                out += "    <system-out>\(Self.escapeText(systemOut))</system-out>\n"
            }
            out += "  </testcase>\n"
        }
        out += "</testsuite>\n"
        return out
    }

    // MARK: - Escaping

    /// Text content: `&`, `<`, `>` as entities; `\r` as a reference so a parser does not fold it into
    /// `\n`; characters XML 1.0 cannot carry at all (other C0 controls, U+FFFE, U+FFFF) as the visible
    /// Swift spelling `\u{1B}`, so that e.g. ANSI colours in a failure stay readable.
    package static func escapeText(_ text: String) -> String {
        escape(text, inAttribute: false)
    }

    /// Attribute values: as text, plus quotes, and tab/newline as references (attribute-value
    /// normalization would turn them into spaces).
    package static func escapeAttribute(_ text: String) -> String {
        escape(text, inAttribute: true)
    }

    static func escape(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "'" where inAttribute: out += "&apos;"
            case "\r": out += "&#13;"
            case "\n" where inAttribute: out += "&#10;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Seconds with millisecond precision and a `.` whatever the locale: "1.234". Negative and
    /// non-finite times (a clock that went backwards) become 0.
    static func formatSeconds(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0.000" }
        let millis = Int((min(seconds, 1e12) * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    // MARK: - Writing

    /// Writes `xml()` to `path` (`OutputFile`: a regular file only, temp + fsync + rename), so a CI
    /// reader (or a killed harness) never sees half a report, and a device, FIFO or symlink at the
    /// path is refused, never replaced. `what` names the file in the one-line error.
    package func write(toPath path: String, what: String = "JUnit report") throws(OutputFile.Failure) {
        try OutputFile.write(Array(xml().utf8), to: path, what: what)
    }
}

/// The POSIX errno behind a Foundation file error (EIO when it carries none).
func posixCode(of error: Error) -> Int32 {
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
        return Int32(underlying.code)
    }
    switch CocoaError.Code(rawValue: ns.code) {
    case .fileNoSuchFile, .fileReadNoSuchFile, .fileWriteInvalidFileName: return ENOENT
    case .fileWriteNoPermission, .fileReadNoPermission: return EACCES
    case .fileWriteOutOfSpace: return ENOSPC
    default: return EIO
    }
}
