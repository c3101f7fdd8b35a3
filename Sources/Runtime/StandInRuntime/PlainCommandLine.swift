/// A reader for the command lines the harness itself writes: `--name value` pairs and bare
/// `--flag`s, each known and given at most once, no value that looks like an option. Anything else
/// is not read (nil), and the caller hands the whole line to ArgumentParser.
///
/// Why not only ArgumentParser: it reflects over the command at every start — ~3 ms of CPU, most
/// of a stand-in's or a server's start-up here, mostly the Swift runtime's first conformance
/// lookups in a large static binary — and a 24-hour virtual-time run starts ~400 processes while
/// every other process waits for them. Each user of this keeps a test that it reads the harness's
/// lines as ArgumentParser does.
public struct PlainCommandLine: Sendable, Equatable {
    public var values: [String: String]
    public var flags: Set<String>

    public init?(_ args: [String], options: Set<String>, flags allowedFlags: Set<String> = []) {
        var values: [String: String] = [:]
        var flags = Set<String>()
        var i = 0
        while i < args.count {
            let name = args[i]
            if allowedFlags.contains(name) {
                guard flags.insert(name).inserted else { return nil }
                i += 1
                continue
            }
            guard options.contains(name), i + 1 < args.count, values[name] == nil else { return nil }
            let value = args[i + 1]
            guard !value.hasPrefix("-") else { return nil }
            values[name] = value
            i += 2
        }
        self.values = values
        self.flags = flags
    }
}
