// The extension as an executable the harness starts per call, as iOS does: one line.
import StandInKit

ScreenTimeProcess.extension(ShieldConfigurationExtension())
