// Pushin (seed 002) stand-ins: `sth-pushin host-app | shield-action-extension`.
import PushinStandIns

PushinCommand.main()
