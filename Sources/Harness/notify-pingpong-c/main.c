// Baseline for `harness bench notify`: the cheapest cross-process notification this machine has
// through the same mechanism our API uses — write a temp file, rename it into a watched
// directory, wake the other process on IN_MOVED_TO — with raw inotify, no library.
//
// usage: notify-pingpong-c <dir> <iterations> <warmup> [pin] [protocol]
// With "pin", the parent (ping) runs on CPU 0 and the child (pong) on CPU 1, as the Swift side does.
// With "protocol", each post makes the system calls PROTOCOL.md §4.2 asks of ours, in C: the
// namespace flock, the header (pread of its four words, pwrite of the high-water before the
// rename, pwrite of the landed pair after it), a unique temp name per post; the name's record is
// not read (its state is known under an unchanged state epoch, PROTOCOL.md §4.2 "Posting without reading",
// as in every post of this loop); the watch also asks IN_MOVED_FROM. Between the two runs lies
// what the protocol costs; between this one and ours, what Swift and our code add.
// Prints one round-trip time in nanoseconds per line (iterations lines) on stdout.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int protocol;        // "protocol": our protocol's system calls (see the top)
static int lockfd = -1;     // <dir>/.lock in protocol mode
static unsigned long counter;

static void post(const char *dir, const char *name, unsigned long long gen) {
    char tmp[PATH_MAX], dst[PATH_MAX], body[80];
    unsigned long long header[4] = {0, 0, 0, 0};
    if (protocol) {
        if (flock(lockfd, LOCK_EX) != 0) { perror("flock"); exit(2); }
        if (pread(lockfd, header, sizeof header, 0) < 0) { perror("pread"); exit(2); }
        header[0] = gen;
        if (pwrite(lockfd, header, 8, 0) != 8) { perror("pwrite"); exit(2); }
        snprintf(tmp, sizeof tmp, "%s/.tmp.%d.%lu.g%llu.%s", dir, getpid(), ++counter, gen, name);
    } else {
        snprintf(tmp, sizeof tmp, "%s/.tmp.%d.%s", dir, getpid(), name);
    }
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { perror("open"); exit(2); }
    int n = snprintf(body, sizeof body, "v1 %llu 0\n", gen);
    if (write(fd, body, n) != n) { perror("write"); exit(2); }
    close(fd);
    if (rename(tmp, dst) != 0) { perror("rename"); exit(2); }
    if (protocol) {
        if (pwrite(lockfd, header, 16, 8) != 16) { perror("pwrite"); exit(2); }
        flock(lockfd, LOCK_UN);
    }
}

// Blocks until IN_MOVED_TO of `name` arrives on `ifd`.
static void await(int ifd, const char *name) {
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t len = read(ifd, buf, sizeof buf);
        if (len < 0) { if (errno == EINTR) continue; perror("read"); exit(2); }
        for (char *p = buf; p < buf + len;) {
            struct inotify_event *e = (struct inotify_event *)p;
            if ((e->mask & IN_MOVED_TO) && e->len && strcmp(e->name, name) == 0) return;
            p += sizeof(struct inotify_event) + e->len;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 6) { fprintf(stderr, "usage: %s <dir> <iterations> <warmup> [pin] [protocol]\n", argv[0]); return 2; }
    int pin = 0;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "pin") == 0) pin = 1;
        else if (strcmp(argv[i], "protocol") == 0) protocol = 1;
        else { fprintf(stderr, "%s: unknown option %s (pin, protocol)\n", argv[0], argv[i]); return 2; }
    }
    const char *dir = argv[1];
    long iterations = atol(argv[2]), warmup = atol(argv[3]);
    if (iterations <= 0 || iterations > 10000000 || warmup < 0) { fprintf(stderr, "bad counts\n"); return 2; }
    mkdir(dir, 0700);
    if (protocol) {
        char lock[PATH_MAX];
        snprintf(lock, sizeof lock, "%s/.lock", dir);
        lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lockfd < 0) { perror("open lock"); return 2; }
    }
    // Both watches exist before the first post: no lost wake-up.
    int pifd = inotify_init1(IN_CLOEXEC), cifd = inotify_init1(IN_CLOEXEC);
    // Ours also watches IN_MOVED_FROM (the temp name carries the generation, PROTOCOL.md §4.3).
    uint32_t mask = IN_MOVED_TO | (protocol ? IN_MOVED_FROM : 0);
    if (pifd < 0 || cifd < 0 || inotify_add_watch(pifd, dir, mask) < 0 || inotify_add_watch(cifd, dir, mask) < 0) {
        perror("inotify"); return 2;
    }
    pid_t child = fork();
    if (child < 0) { perror("fork"); return 2; }
    long total = iterations + warmup;
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (pin) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(1, &s); sched_setaffinity(0, sizeof s, &s); }
        close(pifd);
        for (long i = 0; i < total; i++) { await(cifd, "ping"); post(dir, "pong", (unsigned long long)i + 1); }
        _exit(0);
    }
    close(cifd);
    if (pin) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(0, sizeof s, &s); }
    long long *samples = malloc(sizeof(long long) * (size_t)iterations);
    if (!samples) return 2;
    for (long i = 0; i < total; i++) {
        long long t0 = now_ns();
        post(dir, "ping", (unsigned long long)i + 1);
        await(pifd, "pong");
        if (i >= warmup) samples[i - warmup] = now_ns() - t0;
    }
    int status;
    waitpid(child, &status, 0);
    for (long i = 0; i < iterations; i++) printf("%lld\n", samples[i]);
    return 0;
}
