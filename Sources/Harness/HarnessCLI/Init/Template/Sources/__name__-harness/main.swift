// The harness for __Name__: every verb of ScreenTimeHarness, with this app's system.
//   swift run __name__-harness run scenarios/__name__.yaml
import HarnessCLI

HarnessCLI.main(systems: [__Name__System()])
