// Until (seed 003) stand-ins: `sth-until host-app | monitor-extension`.
import UntilStandIns

UntilCommand.main()
