// libinotifytools ships no pkg-config file; this shim is the module's only header.
// <sys/inotify.h> must come first: inotifytools.h uses its types without including it.
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>

// `struct inotify_event` ends in a flexible array member Swift cannot read.
static inline const char *sth_inotify_event_name(const struct inotify_event *e) {
    return e->len > 0 ? e->name : "";
}
