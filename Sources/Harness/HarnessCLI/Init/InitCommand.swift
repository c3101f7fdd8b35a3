import ArgumentParser
import AppGroup
import Foundation

/// `harness init DIR`: writes a Swift package that tests a team's own Screen Time app from its
/// own repository — an example app (a host and a shield-action extension written only against
/// Apple's module names), its extension as an executable in one line, the host driven by a small
/// adapter, a harness executable (`HarnessCLI.main(systems:)`) and a scenario. It builds against
/// this checkout (`--path`, the default when the checkout this harness was built from is still
/// there) or a released version (`--url` and `--version`).
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a package that runs your own Screen Time app under the harness (no fork).",
        discussion: """
            Then: cd DIR && swift run NAME-harness run scenarios/NAME.yaml   (NAME: --name, lowercased)
            The package's README.md walks through replacing the example with your app's code.
            """)

    @Argument(help: "Directory to write the package into (absent or empty).") var directory: String
    @Option(help: "The package's name, a Swift identifier (default: the directory's name).") var name: String?
    @Option(help: "A ScreenTimeHarness checkout to depend on by path (default: the one this harness was built from).") var path: String?
    @Option(help: "A ScreenTimeHarness git URL to depend on, with --version.") var url: String?
    @Option(help: "The exact version of --url.") var version: String?

    /// The checkout this executable's library was compiled from (`<root>/Sources/Harness/HarnessCLI/Init/` holds this file).
    static let builtFrom: String = {
        let file = #filePath
        var url = URL(fileURLWithPath: file)
        for _ in 0..<5 { url.deleteLastPathComponent() }  // the file, Init/, HarnessCLI/, Harness/, Sources/
        return url.path
    }()

    func run() throws {
        let name = try packageName()
        let (dependency, packageID) = try dependencyLine()
        let dir = (directory as NSString).standardizingPath
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: dir, isDirectory: &isDir) {
            guard isDir.boolValue else { throw InputError("\(dir) exists and is not a directory; name a new directory") }
            guard (try fm.contentsOfDirectory(atPath: dir)).isEmpty else {
                throw InputError("\(dir) is not empty; harness init writes only into a new or empty directory (nothing was written)")
            }
        }
        let lower = name.lowercased()
        func fill(_ s: String) -> String {
            s.replacingOccurrences(of: "__Name__", with: name).replacingOccurrences(of: "__name__", with: lower)
                .replacingOccurrences(of: "__PACKAGE_ID__", with: packageID).replacingOccurrences(of: "__DEPENDENCY__", with: dependency)
        }
        for file in InitTemplateFiles.files {
            let target = dir + "/" + fill(file.path)
            try fm.createDirectory(atPath: PathText.directory(of: target), withIntermediateDirectories: true)
            guard fm.createFile(atPath: target, contents: Data(fill(file.text).utf8), attributes: [.posixPermissions: 0o644]) else {
                throw InputError("cannot write \(target)")
            }
        }
        print("wrote \(name) to \(dir) (\(InitTemplateFiles.files.count) files)")
        print("next: cd \(dir) && swift run \(lower)-harness run scenarios/\(lower).yaml")
    }

    func packageName() throws -> String {
        let raw = name ?? (((directory as NSString).standardizingPath as NSString).lastPathComponent)
        // A Swift identifier that also makes executable names: letters and digits, a letter first.
        let letters = raw.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard let first = letters.first, first.isLetter, letters.count <= 40 else {
            throw InputError("cannot make a package name of '\(raw)': pass --name NAME (ASCII letters and digits, a letter first, at most 40)")
        }
        if name != nil, letters != raw {
            throw InputError("--name \(raw): use ASCII letters and digits only, a letter first (e.g. \(letters.isEmpty ? "MyApp" : letters))")
        }
        return first.uppercased() + letters.dropFirst()
    }

    /// The package's dependency on ScreenTimeHarness and the identity its products are named by.
    func dependencyLine() throws -> (line: String, id: String) {
        if let url {
            guard path == nil else { throw InputError("give --path or --url, not both") }
            guard let version, !version.isEmpty else { throw InputError("--url needs --version (an exact release, e.g. 1.0.0)") }
            var id = (url as NSString).lastPathComponent
            if id.hasSuffix(".git") { id.removeLast(4) }
            return (".package(url: \(Self.quoted(url)), exact: \(Self.quoted(version)))", id)
        }
        guard version == nil else { throw InputError("--version goes with --url") }
        let checkout = ((path ?? Self.builtFrom) as NSString).standardizingPath
        let absolute = checkout.hasPrefix("/") ? checkout : FileManager.default.currentDirectoryPath + "/" + checkout
        let manifest = absolute + "/Package.swift"
        guard let text = try? String(contentsOfFile: manifest, encoding: .utf8), text.contains("name: \"ScreenTimeHarness\"") else {
            let which = path == nil ? "the checkout this harness was built from (\(absolute)) is gone" : "\(absolute) has no ScreenTimeHarness Package.swift"
            throw InputError("\(which): pass --path CHECKOUT, or --url URL --version V")
        }
        return (".package(path: \(Self.quoted(absolute)))", (absolute as NSString).lastPathComponent)
    }

    static func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
