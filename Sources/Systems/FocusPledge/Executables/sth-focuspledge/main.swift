// FocusPledge (seed 000) stand-ins: `sth-focuspledge host-app | monitor-extension | shield-action-extension`.
import FocusPledgeStandIns

FocusPledgeCommand.launch()
