// Exit (seed 004) stand-ins: `sth-exit host | monitor-extension | shield-action-extension | shield-configuration-extension`.
import ExitStandIns

ExitCommand.launch()
