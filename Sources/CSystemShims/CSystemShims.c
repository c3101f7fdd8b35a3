#define _GNU_SOURCE
#include "CSystemShims.h"
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/statfs.h>
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

pid_t sth_spawn(const char *path, char *const argv[], char *const envp[],
                int new_pgroup, pid_t pgid, int stdout_fd, int stderr_fd, const char *cwd) {
    pid_t parent = getpid();
    // The error pipe tells the parent whether exec succeeded (closed by O_CLOEXEC on success).
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno; close(errpipe[0]); close(errpipe[1]); errno = e;
        return -1;
    }
    if (pid == 0) {
        // Child: async-signal-safe calls only.
        close(errpipe[0]);
        if (new_pgroup) setpgid(0, 0);
        else if (pgid > 0) setpgid(0, pgid);
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent) _exit(127); // parent died before prctl took effect
        sigset_t none; sigemptyset(&none); sigprocmask(SIG_SETMASK, &none, NULL);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) { dup2(devnull, 0); if (devnull > 2) close(devnull); }
        if (stdout_fd >= 0) dup2(stdout_fd, 1);
        if (stderr_fd >= 0) dup2(stderr_fd, 2);
        if (cwd && chdir(cwd) != 0) { int e = errno; (void)!write(errpipe[1], &e, sizeof e); _exit(127); }
        execve(path, argv, envp ? envp : environ);
        int e = errno;
        (void)!write(errpipe[1], &e, sizeof e);
        _exit(127);
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

int sth_cpu_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return CPU_COUNT(&set);
}

int sth_block_sigterm_signalfd(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int sth_sigterm_pending(void) {
    sigset_t set;
    sigemptyset(&set);
    if (sigpending(&set) != 0) return 0;
    return sigismember(&set, SIGTERM) == 1;
}
