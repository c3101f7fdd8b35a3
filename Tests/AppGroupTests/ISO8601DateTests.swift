import AppGroup
import Foundation
import Testing

/// The plist `<date>` both ways in one calendar. The fuzz test's mutated corpus found a year 0026
/// that came back two days off: the encoder wrote `26-02-13…` through `gmtime` (proleptic
/// Gregorian, no padding), ISO8601DateFormatter read it in the Julian calendar.
@Suite(.timeLimit(.minutes(1))) struct ISO8601DateTests {
    @Test(arguments: ["0001-01-01T00:00:00Z", "0026-02-13T08:00:00Z", "1500-03-01T12:00:00Z", "1582-10-10T00:00:00Z", "1970-01-01T00:00:00Z",
        "2024-02-29T23:59:59Z", "9999-12-31T23:59:59Z"])
    func aDateRoundTripsThroughTheSuiteEncoding(text: String) throws {
        let date = try ISO8601Date.parse(text).get()
        #expect(ISO8601Date.format(date) == text)
        let bytes = PropertyListCodec.encode(["d": .date(date)])
        #expect(try PropertyListCodec.decodeDictionary(bytes) == ["d": .date(date)])
        #expect(String(decoding: bytes, as: UTF8.self).contains("<date>\(text)</date>"))
    }

    @Test func aDateThatDoesNotExistIsACorruptSuite() {
        let xml = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>d</key><date>2026-02-30T08:00:00Z</date></dict></plist>"#
        #expect(throws: PropertyListCodec.Malformed.self) { try PropertyListCodec.decodeDictionary(Array(xml.utf8)) }
    }
}
