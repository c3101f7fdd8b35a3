#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H
// Thin C seams for calls Swift's Glibc overlay imports badly (variadic fcntl/openat, prctl)
// or that must run between fork and exec (only async-signal-safe calls there).
#include <stdint.h>
#include <sys/types.h>
// inotify(7) for the notify watcher (AppGroup.InotifyWatcher): the Glibc overlay does not bring it.
#include <sys/inotify.h>

/// openat(2) with an explicit mode (the Glibc overlay's variadic import is awkward).
int sth_openat(int dirfd, const char *path, int flags, unsigned int mode);
/// pipe2(O_CLOEXEC [| O_NONBLOCK]): not exported by the Glibc overlay.
int sth_pipe_cloexec(int fds[2], int nonblock);
/// Set FD_CLOEXEC on an fd. Returns 0 or -1 (errno set).
int sth_set_cloexec(int fd);
/// prctl(PR_SET_PDEATHSIG, sig): this process gets `sig` when the thread that forked it exits.
int sth_set_pdeathsig(int sig);
/// Pins the calling thread (and threads it creates later) to one CPU; -1 if unavailable.
int sth_pin_to_cpu(int cpu);
/// Lets the calling thread run on every online CPU again (undoes `sth_pin_to_cpu` for it); -1 on error.
int sth_unpin(void);
/// A thread's CPU mask, opaque (the size of glibc's cpu_set_t: 1024 CPUs).
typedef struct { unsigned long bits[1024 / (8 * sizeof(unsigned long))]; } sth_cpu_mask;
/// The calling thread's CPU mask (sched_getaffinity); 0, or -1 with errno.
int sth_get_thread_cpus(sth_cpu_mask *mask);
/// Sets the calling thread's CPU mask (threads it starts and processes it spawns later inherit
/// it); 0, or -1 with errno.
int sth_set_thread_cpus(const sth_cpu_mask *mask);
/// The CPUs in `mask`, in increasing order, into `out` (at most `max`); returns how many.
int sth_cpu_mask_list(const sth_cpu_mask *mask, int *out, int max);
/// sched_getcpu(): the CPU the calling thread runs on at this moment, or -1.
int sth_current_cpu(void);
/// The filesystem magic of the filesystem holding `fd` (statfs f_type), or -1.
long sth_fs_type(int fd);
/// renameat2(dirfd, a, dirfd, b, RENAME_EXCHANGE): swaps the two names atomically; 0, or -1 with
/// errno (ENOENT when either is missing; EINVAL or ENOSYS where the filesystem or kernel cannot).
int sth_rename_exchange(int dirfd, const char *a, const char *b);

/// Blocks SIGTERM in the calling thread (and so in every thread it starts later) and returns a
/// non-blocking, close-on-exec signalfd that turns readable while SIGTERM is pending; -1 on error.
/// Polling the fd does not take the signal: it stays pending until the process exits.
int sth_block_sigterm_signalfd(void);
/// 1 when SIGTERM is pending for the process or the calling thread, else 0.
int sth_sigterm_pending(void);

/// pidfd_open(2) (Linux 5.3): a close-on-exec fd that turns readable (POLLIN) when `pid` exits;
/// -1 with errno set where the kernel cannot.
int sth_pidfd_open(pid_t pid);

/// clone(CLONE_VM | CLONE_VFORK) + exec (what posix_spawn does, which cannot set PDEATHSIG) with
/// the child in its own process group (`new_pgroup` = 1) or in group `pgid` (> 0),
/// PR_SET_PDEATHSIG(SIGKILL) set in the child, stdin from /dev/null, stdout/stderr dup'ed from
/// the given fds (-1 = inherit), and a bail-out if the parent already died before prctl.
/// `cpus` (may be NULL: the spawning thread's): the child's CPU mask — a child inherits the mask
/// of the thread that clones it, and `ChildProcess` clones from one long-lived thread, so it
/// passes its caller's. Returns the child's pid, or -1 with errno set. `envp` may be NULL
/// (inherit environ).
pid_t sth_spawn(const char *path, char *const argv[], char *const envp[],
                int new_pgroup, pid_t pgid, int stdout_fd, int stderr_fd, const char *cwd,
                const sth_cpu_mask *cpus, int inherit_fd);

/// The clock page (PROTOCOL.md §2, "The harness's clock page"): what the harness last wrote to
/// `<root>/clock`, in a sealed memfd its children inherit read-only, under a sequence lock.
typedef struct {
    uint64_t magic;          // STH_CLOCK_PAGE_MAGIC once written
    uint64_t root_dev;       // st_dev and st_ino of the device root the clock belongs to
    uint64_t root_ino;
    uint64_t present;        // 1: `<root>/clock` holds the fields below; 0: no clock (real time)
    double epoch_unix_seconds;
    uint64_t anchor_monotonic_nanos;
    double rate;
    double offset_seconds;
    uint64_t stepped;        // 1: mode "stepped"
    uint64_t time_zone_length;
    char time_zone[64];
} sth_clock_page_fields;
#define STH_CLOCK_PAGE_MAGIC 0x3130706b6c636874ULL  /* "thclkp01" */
#define STH_CLOCK_PAGE_BYTES 4096
/// A sealed memfd of one page, mapped read-write at *page (can neither shrink nor grow; after
/// `sth_clock_page_seal` no one else can write it or map it writable). Returns the fd (close-on-exec),
/// or -1 with errno.
int sth_clock_page_create(void **page);
/// Forbids every future write and writable mapping (F_SEAL_FUTURE_WRITE): the harness's own
/// mapping stays writable. 0, or -1 with errno.
int sth_clock_page_seal(int fd);
/// Maps an inherited clock page read-only after checking it is one (a sealed memfd of one page
/// that cannot be written through new mappings); NULL with errno otherwise.
const void *sth_clock_page_map_readonly(int fd);
/// The writer: the fields, under the sequence lock (one writer).
void sth_clock_page_write(void *page, const sth_clock_page_fields *fields);
/// The page's sequence (even when no write is under way); a reader compares it with the one it
/// last read to know whether anything changed, without a system call.
uint64_t sth_clock_page_sequence(const void *page);
/// A consistent copy of the fields and the sequence it was read at: 0, or -1 when a write
/// stayed under way through every one of a bounded number of tries.
int sth_clock_page_read(const void *page, sth_clock_page_fields *out, uint64_t *sequence);

#endif
