// The FocusPledge DeviceActivityMonitor extension: one callback per process, as iOS runs it.
import StandIns

ExtensionRunner.monitor(arguments: Array(CommandLine.arguments.dropFirst()))
