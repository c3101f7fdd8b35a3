// The FocusPledge ShieldAction extension: one button press per process.
import StandIns

ExtensionRunner.shieldAction(arguments: Array(CommandLine.arguments.dropFirst()))
