// The App Group as app code and stand-ins see it stands on three layers below it, re-exported so
// `import AppGroup` is still the whole of it: the values a suite holds (PropertyList), the device
// root's on-disk protocol (DeviceProtocol: files, clock, scheduler wire, notify names, heartbeat
// records) and the faults the harness injects (FaultInjection: crash points, failpoints, defaults
// faults).
@_exported import DeviceProtocol
@_exported import FaultInjection
@_exported import PropertyList
