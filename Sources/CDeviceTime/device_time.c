#define _GNU_SOURCE
#include "device_time.h"

#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);

static sth_device_time_source source;
/// Nesting depth of app code on this thread; and a guard: the source itself may read the clock.
static __thread int depth;
static __thread int in_source;

static clock_gettime_fn real_clock_gettime(void) {
    static clock_gettime_fn f;
    if (!f) f = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    return f;
}

static gettimeofday_fn real_gettimeofday(void) {
    static gettimeofday_fn f;
    if (!f) f = (gettimeofday_fn)dlsym(RTLD_NEXT, "gettimeofday");
    return f;
}

void sth_device_time_set_source(sth_device_time_source s) { source = s; }
void sth_device_time_enter(void) { depth++; }
void sth_device_time_leave(void) { if (depth > 0) depth--; }
int sth_device_time_active(void) { return depth > 0; }

/// Device seconds when the calling thread runs app code and the source knows them, else -1.
static double device_now(void) {
    if (depth == 0 || !source || in_source) return -1;
    in_source = 1;
    double t = source();
    in_source = 0;
    return t;
}

int clock_gettime(clockid_t clock, struct timespec *tp) {
    clock_gettime_fn real = real_clock_gettime();
    int r = real ? real(clock, tp) : -1;
    if (r == 0 && tp && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        double t = device_now();
        if (t >= 0) {
            double s = floor(t);
            tp->tv_sec = (time_t)s;
            tp->tv_nsec = (long)((t - s) * 1e9);
        }
    }
    return r;
}

int gettimeofday(struct timeval *tv, void *tz) {
    gettimeofday_fn real = real_gettimeofday();
    int r = real ? real(tv, tz) : -1;
    if (r == 0 && tv) {
        double t = device_now();
        if (t >= 0) {
            double s = floor(t);
            tv->tv_sec = (time_t)s;
            tv->tv_usec = (suseconds_t)((t - s) * 1e6);
        }
    }
    return r;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
