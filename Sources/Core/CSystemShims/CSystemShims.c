#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "CSystemShims.h"
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int sth_openat(int dirfd, const char *path, int flags, unsigned int mode) {
    return openat(dirfd, path, flags, (mode_t)mode);
}

int sth_set_cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

int sth_set_pdeathsig(int sig) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0, 0, 0);
}

long sth_fs_type(int fd) {
    struct statfs s;
    if (fstatfs(fd, &s) != 0) return -1;
    return (long)s.f_type;
}

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int sth_rename_exchange(int dirfd, const char *a, const char *b) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, dirfd, a, dirfd, b, RENAME_EXCHANGE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

struct spawn_args {
    const char *path;
    char *const *argv;
    char *const *envp;
    int new_pgroup;
    pid_t pgid;
    int stdout_fd;
    int stderr_fd;
    const char *cwd;
    pid_t parent;
    int errfd;
    const sth_cpu_mask *cpus;
    int inherit_fd;
};

// The child, on its own stack, sharing the parent's memory until execve (CLONE_VM | CLONE_VFORK,
// as glibc's posix_spawn does): raw system calls only, and nothing written that the parent reads
// but the error pipe.
static int spawn_child(void *p) {
    struct spawn_args *a = p;
    // Handlers are the parent's code and data: none may run here. Every caught signal goes back
    // to its default before the mask (all blocked by the parent) is lifted.
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa) != 0) continue;
        if (sa.sa_handler == SIG_IGN || sa.sa_handler == SIG_DFL) continue;
        sa.sa_handler = SIG_DFL;
        sa.sa_flags = 0;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
    // The harness ignores SIGPIPE (a wake FIFO whose reader died); a child starts with the default.
    signal(SIGPIPE, SIG_DFL);
    if (a->new_pgroup) setpgid(0, 0);
    else if (a->pgid > 0) setpgid(0, a->pgid);
    // The requesting thread's CPUs (a stepped run pinned to one: CPUPinning); a failure leaves the spawner's.
    if (a->cpus) sched_setaffinity(0, sizeof(cpu_set_t), (const cpu_set_t *)a->cpus);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != a->parent) _exit(127); // parent died before prctl took effect
    sigset_t none; sigemptyset(&none); sigprocmask(SIG_SETMASK, &none, NULL);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) { dup2(devnull, 0); if (devnull > 2) close(devnull); }
    if (a->stdout_fd >= 0) dup2(a->stdout_fd, 1);
    if (a->stderr_fd >= 0) dup2(a->stderr_fd, 2);
    // The one descriptor the child is meant to keep (the clock page): this copy of the fd table is
    // the child's own (no CLONE_FILES), so the parent's stays close-on-exec.
    if (a->inherit_fd >= 0) fcntl(a->inherit_fd, F_SETFD, 0);
    if (a->cwd && chdir(a->cwd) != 0) { int e = errno; (void)!write(a->errfd, &e, sizeof e); _exit(127); }
    execve(a->path, a->argv, a->envp ? a->envp : environ);
    int e = errno;
    (void)!write(a->errfd, &e, sizeof e);
    _exit(127);
}

pid_t sth_spawn(const char *path, char *const argv[], char *const envp[],
                int new_pgroup, pid_t pgid, int stdout_fd, int stderr_fd, const char *cwd,
                const sth_cpu_mask *cpus, int inherit_fd) {
    // The error pipe tells the parent whether exec succeeded (closed by O_CLOEXEC on success).
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) return -1;
    // vfork-style, not fork: a fork write-protects every page of the (large) harness, which then
    // takes a page fault on each page it writes afterwards — 8 % of a 24 h virtual-time run's
    // CPU, ~400 spawns, on the harness's main thread while every process waited for it.
    const size_t stack_size = 64 * 1024;
    char *stack = malloc(stack_size);
    if (!stack) { close(errpipe[0]); close(errpipe[1]); errno = ENOMEM; return -1; }
    struct spawn_args a = {path, argv, envp, new_pgroup, pgid, stdout_fd, stderr_fd, cwd, getpid(), errpipe[1], cpus, inherit_fd};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(spawn_child, stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
    int clone_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(stack);
    if (pid < 0) {
        close(errpipe[0]); close(errpipe[1]); errno = clone_errno;
        return -1;
    }
    close(errpipe[1]);
    // Mirror setpgid in the parent to close the race where we signal the group before the child ran.
    if (new_pgroup) setpgid(pid, pid);
    else if (pgid > 0) setpgid(pid, pgid);
    int child_errno = 0;
    ssize_t n;
    do { n = read(errpipe[0], &child_errno, sizeof child_errno); } while (n < 0 && errno == EINTR);
    close(errpipe[0]);
    if (n == sizeof child_errno) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        errno = child_errno;
        return -1;
    }
    return pid;
}

int sth_pipe_cloexec(int fds[2], int nonblock) {
    return pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
}

int sth_pin_to_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int sth_unpin(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long i = 0; i < n && i < CPU_SETSIZE; i++) CPU_SET(i, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

_Static_assert(sizeof(sth_cpu_mask) == sizeof(cpu_set_t), "sth_cpu_mask is a cpu_set_t");

int sth_get_thread_cpus(sth_cpu_mask *mask) {
    return sched_getaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)mask);
}

int sth_set_thread_cpus(const sth_cpu_mask *mask) {
    return sched_setaffinity(0, sizeof(cpu_set_t), (const cpu_set_t *)mask);
}

int sth_cpu_mask_list(const sth_cpu_mask *mask, int *out, int max) {
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++) {
        if (CPU_ISSET(cpu, (const cpu_set_t *)mask)) out[n++] = cpu;
    }
    return n;
}

int sth_current_cpu(void) { return sched_getcpu(); }

int sth_block_sigterm_signalfd(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int sth_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);  // pidfds are always close-on-exec
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int sth_sigterm_pending(void) {
    sigset_t set;
    sigemptyset(&set);
    if (sigpending(&set) != 0) return 0;
    return sigismember(&set, SIGTERM) == 1;
}

// MARK: - The clock page

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

// The sequence sits alone in the first cache line, the fields from the second.
#define STH_CLOCK_FIELDS_OFFSET 64

int sth_clock_page_create(void **page) {
    int fd = (int)syscall(SYS_memfd_create, "sth-clock-page", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, STH_CLOCK_PAGE_BYTES) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
        int e = errno; close(fd); errno = e; return -1;
    }
    void *p = mmap(NULL, STH_CLOCK_PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { int e = errno; close(fd); errno = e; return -1; }
    *page = p;
    return fd;
}

int sth_clock_page_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SEAL);
}

const void *sth_clock_page_map_readonly(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return NULL;
    int seals = fcntl(fd, F_GET_SEALS);
    int needed = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE;
    // Only a page nobody can shrink (a mapping of a truncated file faults with SIGBUS) nor write.
    if (!S_ISREG(st.st_mode) || st.st_size != STH_CLOCK_PAGE_BYTES || seals < 0 || (seals & needed) != needed) {
        errno = EINVAL;
        return NULL;
    }
    void *p = mmap(NULL, STH_CLOCK_PAGE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

void sth_clock_page_write(void *page, const sth_clock_page_fields *fields) {
    uint64_t *seq = page;
    uint64_t s = __atomic_load_n(seq, __ATOMIC_RELAXED);
    __atomic_store_n(seq, s + 1, __ATOMIC_RELAXED);  // odd: a write is under way
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy((char *)page + STH_CLOCK_FIELDS_OFFSET, fields, sizeof *fields);
    __atomic_store_n(seq, s + 2, __ATOMIC_RELEASE);
}

uint64_t sth_clock_page_sequence(const void *page) {
    return __atomic_load_n((const uint64_t *)page, __ATOMIC_ACQUIRE);
}

int sth_clock_page_read(const void *page, sth_clock_page_fields *out, uint64_t *sequence) {
    const uint64_t *seq = page;
    for (int tries = 0; tries < 1000; tries++) {
        uint64_t s1 = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
        if (s1 & 1) { sched_yield(); continue; }
        memcpy(out, (const char *)page + STH_CLOCK_FIELDS_OFFSET, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(seq, __ATOMIC_RELAXED) == s1) { *sequence = s1; return 0; }
    }
    errno = EAGAIN;
    return -1;
}
