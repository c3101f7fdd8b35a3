// ScreenTimeHarness runs on Linux only: the on-disk protocol is built on inotify, OFD locks,
// prctl(PR_SET_PDEATHSIG), signalfd and clone(2) (docs/PROTOCOL.md). Package.swift declares no
// Apple platform; this makes any other build fail at once with the reason, not with a missing
// symbol deep in a C shim.
#if !os(Linux)
#error("ScreenTimeHarness builds and runs on Linux only (inotify, OFD locks, prctl, signalfd); see README")
#endif
