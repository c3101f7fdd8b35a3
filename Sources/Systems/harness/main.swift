// The `harness` executable: the harness library's `main` with the bundled seed packs. A team's
// own harness executable is the same one call with its own systems (README "Test your own app").
import HarnessCLI
import SystemRegistry

HarnessCLI.main(catalog: SystemRegistry.catalog)
