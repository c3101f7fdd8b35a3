// Seed 001 (the v1.1 iOS enforcement spec) stand-ins:
// `sth-enforcement host | monitor-extension | shield-action-extension | shield-configuration-extension`.
import EnforcementStandIns

EnforcementCommand.launch()
