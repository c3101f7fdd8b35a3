/// Durations as people write them in scenario files and on the command line:
/// `90s`, `15m`, `4h`, `1h30m`, `2d`, `1d12h`, `1h30m15s`, or a bare number of seconds (`5400`).
/// Units appear at most once each, largest first; only whole numbers.
public enum ScenarioDuration {
    /// A year of device time: more than any scenario needs, small enough that nothing overflows.
    public static let maximumSeconds = 366 * 24 * 3600

    /// Whole seconds, or nil if `text` is not a duration (or is larger than `maximumSeconds`).
    /// Zero is a valid duration here; callers that need a positive one say so themselves.
    public static func seconds(from text: String) -> Int? {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        if trimmed.allSatisfy(\.isASCIIDigit) {
            return boundedInt(trimmed)
        }
        let unitSeconds: [(unit: Character, seconds: Int)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]
        var total = 0
        var nextUnitIndex = 0
        var digits = ""
        for character in trimmed {
            if character.isASCIIDigit {
                digits.append(character)
                continue
            }
            guard !digits.isEmpty,
                  let index = unitSeconds.firstIndex(where: { $0.unit == character }),
                  index >= nextUnitIndex,
                  let count = boundedInt(digits)
            else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: unitSeconds[index].seconds)
            guard !overflow else { return nil }
            total += product
            guard total <= maximumSeconds else { return nil }
            nextUnitIndex = index + 1
            digits = ""
        }
        // Trailing digits without a unit ("1h30") are ambiguous: reject rather than guess.
        guard digits.isEmpty else { return nil }
        return total
    }

    private static func boundedInt(_ digits: String) -> Int? {
        guard digits.count <= 12, let value = Int(digits), value <= maximumSeconds else { return nil }
        return value
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
