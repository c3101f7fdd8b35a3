/// Apple's `DeviceActivityMonitor`: the principal class of a monitor extension. The OS starts
/// the extension for one callback and calls one of these; the base implementations do nothing
/// (subclasses call `super`, as Apple's template does).
open class DeviceActivityMonitor {
    public init() {}

    /// The interval started: first device use within it (Apple).
    open func intervalDidStart(for activity: DeviceActivityName) {}

    /// The interval ended (first use after it), or monitoring of an ongoing interval stopped.
    open func intervalDidEnd(for activity: DeviceActivityName) {}

    /// An event's cumulative use within the interval reached its threshold (once per interval).
    open func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {}

    /// `warningTime` before the interval starts.
    open func intervalWillStartWarning(for activity: DeviceActivityName) {}

    /// `warningTime` before the interval ends.
    open func intervalWillEndWarning(for activity: DeviceActivityName) {}

    /// `warningTime` before an event reaches its threshold.
    open func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {}
}
