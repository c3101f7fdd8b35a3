import AppGroup
import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The harness's clock page (PROTOCOL.md §2): what its children read instead of `<root>/clock`.
@Suite(.timeLimit(.minutes(1))) struct ClockPageTests {
    static let a = DeviceClock.Configuration.stepped(at: 1_771_315_200, timeZone: "Europe/Berlin")
    static let b = DeviceClock.Configuration.stepped(at: 1_771_318_800, timeZone: "Europe/Berlin")
    static let fixed = DeviceClock.Configuration(
        epochUnixSeconds: 1_771_315_200, anchorMonotonicNanos: 12_345, rate: 900, offsetSeconds: -30, timeZone: "America/New_York")

    @Test func aReaderReadsWhatWasWrittenForItsRootOnly() throws {
        let t = try TestRoot()
        let other = try TestRoot()
        let page = try ClockPage.create(for: t.root)
        let reader = try #require(ClockPage.reading(fd: page.fd))
        let identity = try #require(ClockPage.identity(of: t.root))
        #expect(reader.read(rootIdentity: identity) == nil, "nothing written yet: the page does not answer")
        let s0 = reader.sequence
        page.write(Self.a)
        #expect(reader.sequence == s0 + 2, "one write moves the sequence by two (odd while under way)")
        #expect(reader.read(rootIdentity: identity)?.configuration == Self.a)
        page.write(Self.fixed)
        let read = try #require(reader.read(rootIdentity: identity))
        #expect(read.configuration == Self.fixed)
        #expect(read.sequence == reader.sequence)
        #expect(reader.read(rootIdentity: try #require(ClockPage.identity(of: other.root))) == nil, "another root's clock")
        page.write(nil)
        let none = try #require(reader.read(rootIdentity: identity))
        #expect(none.configuration == nil, "no clock file")
    }

    @Test func nobodyButItsWriterCanChangeIt() throws {
        let t = try TestRoot()
        let page = try ClockPage.create(for: t.root)
        page.write(Self.a)
        // Shrinking would make every reader's mapping fault; writing would move everyone's time.
        #expect(ftruncate(page.fd, 0) != 0)
        #expect(ftruncate(page.fd, 8192) != 0)
        var byte: UInt8 = 1
        #expect(pwrite(page.fd, &byte, 1, 0) < 0)
        let writable = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, page.fd, 0)
        #expect(writable == MAP_FAILED, "a writable mapping of a sealed page")
        if writable != MAP_FAILED { munmap(writable, 4096) }
        let reader = try #require(ClockPage.reading(fd: page.fd))
        #expect(reader.read(rootIdentity: try #require(ClockPage.identity(of: t.root)))?.configuration == Self.a)
    }

    @Test func aDescriptorThatIsNotAPageIsRefused() throws {
        let t = try TestRoot()
        let path = t.path + "/not-a-page"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 4096)))
        let fd = open(path, O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        #expect(ClockPage.reading(fd: fd) == nil, "a plain file of the right size anyone can truncate")
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(ClockPage.reading(fd: fds[0]) == nil)
        #expect(ClockPage.reading(fd: 999) == nil, "a closed descriptor")
    }

    /// A child given the page reads its time from it — not from the file — and follows every
    /// write; without it (or with a page that does not validate) the child reads the file.
    @Test func aChildGivenThePageFollowsItAndFallsBackToTheFile() throws {
        let t = try TestRoot()
        try DeviceClock.write(Self.a, to: t.root)
        let page = try ClockPage.create(for: t.root)
        page.write(Self.b)
        let helper = try Executables.path(of: "sth-test-helper")
        var env = ProcessInfo.processInfo.environment
        env[ClockPage.environmentVariable] = String(page.fd)
        let child = try ChildProcess.spawn(helper, ["clock", "--root", t.path], environment: env, inheritFd: page.fd)
        defer { _ = child.killAndReap() }
        #expect(child.readLine(timeout: .seconds(10)) == "page yes")
        #expect(child.readLine(timeout: .seconds(10)) == "now 1771318800.0", "the page's time, not the file's")
        page.write(DeviceClock.Configuration.stepped(at: 1_771_322_400, timeZone: "Europe/Berlin"))
        #expect(child.readLine(timeout: .seconds(10)) == "now 1771322400.0")
        // A page that does not validate (an unknown zone): the file.
        page.write(DeviceClock.Configuration.stepped(at: 1_771_326_000, timeZone: "Not/AZone"))
        #expect(child.readLine(timeout: .seconds(10)) == "now 1771315200.0")

        // The variable without the descriptor (not inherited): ignored, the file.
        let plain = try ChildProcess.spawn(helper, ["clock", "--root", t.path], environment: env)
        defer { _ = plain.killAndReap() }
        #expect(plain.readLine(timeout: .seconds(10)) == "page no")
        #expect(plain.readLine(timeout: .seconds(10)) == "now 1771315200.0")
    }
}
