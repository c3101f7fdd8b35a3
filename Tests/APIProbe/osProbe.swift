// API probe: Apple's `os` module, through which iOS code often reaches the unified logging API
// (docs/FRAMEWORKS-API.md, OSLog section). This file imports only `os`, so it shows `Logger` comes
// through that module and not through the `import OSLog` of OSLogProbe.swift.
import os

/// `Logger` through `import os`
func probe_import_os() {
    Logger(subsystem: "com.example.app", category: "monitor").info("hello")
}
