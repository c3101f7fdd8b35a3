// libinotifytools (Debian: libinotifytools0-dev): recursive inotify watches of a directory tree.
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>
