// Baseline for `harness bench notify`: the cheapest cross-process notification this machine has
// through the same mechanism our API uses — write a temp file, rename it into a watched
// directory, wake the other process on IN_MOVED_TO — with raw inotify, no library.
//
// usage: notify-pingpong-c <dir> <iterations> <warmup> [pin]
// With "pin", the parent (ping) runs on CPU 0 and the child (pong) on CPU 1, as the Swift side does.
// Prints one round-trip time in nanoseconds per line (iterations lines) on stdout.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void post(const char *dir, const char *name, unsigned long long gen) {
    char tmp[PATH_MAX], dst[PATH_MAX], body[64];
    snprintf(tmp, sizeof tmp, "%s/.tmp.%d.%s", dir, getpid(), name);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { perror("open"); exit(2); }
    int n = snprintf(body, sizeof body, "v1 %llu 0\n", gen);
    if (write(fd, body, n) != n) { perror("write"); exit(2); }
    close(fd);
    if (rename(tmp, dst) != 0) { perror("rename"); exit(2); }
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
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: %s <dir> <iterations> <warmup> [pin]\n", argv[0]); return 2; }
    int pin = argc == 5 && strcmp(argv[4], "pin") == 0;
    const char *dir = argv[1];
    long iterations = atol(argv[2]), warmup = atol(argv[3]);
    if (iterations <= 0 || iterations > 10000000 || warmup < 0) { fprintf(stderr, "bad counts\n"); return 2; }
    mkdir(dir, 0700);
    // Both watches exist before the first post: no lost wake-up.
    int pifd = inotify_init1(IN_CLOEXEC), cifd = inotify_init1(IN_CLOEXEC);
    if (pifd < 0 || cifd < 0 || inotify_add_watch(pifd, dir, IN_MOVED_TO) < 0 || inotify_add_watch(cifd, dir, IN_MOVED_TO) < 0) {
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
