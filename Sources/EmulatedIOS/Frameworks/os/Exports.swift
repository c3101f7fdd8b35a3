// Apple's `os` module (`import os`, `import os.log`): the unified logging `Logger`, `OSLog` and
// `os_log` come from here on iOS; here they are the OSLog module's.
@_exported import OSLog
