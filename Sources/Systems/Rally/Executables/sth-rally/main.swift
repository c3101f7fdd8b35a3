// Rally (the example pack) stand-ins: `sth-rally player | returner`.
import RallyStandIns

RallyCommand.main()
