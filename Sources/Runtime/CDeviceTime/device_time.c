#define _GNU_SOURCE
#include "device_time.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
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

/* ---- Absolute-deadline waits (docs/PROTOCOL.md §2, "Waits in app code") ----
 *
 * A timed wait with an absolute CLOCK_REALTIME deadline is computed by its caller from the
 * realtime clock — in app code that is the device clock above (libdispatch's
 * DispatchSemaphore.wait(timeout:) adds the timeout to clock_gettime(CLOCK_REALTIME) and calls
 * sem_timedwait; Foundation's NSCondition.wait(until:) and NSLock.lock(before:) pass
 * Date().timeIntervalSince1970 + t to pthread_cond_timedwait / pthread_mutex_timedlock) — but
 * the kernel compares it with the machine's real clock: a device clock behind the machine's
 * made every such wait return at once, one ahead made it last until the machine caught up.
 *
 * So on a thread running app code, a CLOCK_REALTIME deadline is read as device time and the
 * kernel is given the real deadline that is as far from real now as the deadline is from device
 * now: real = deadline - device_now + real_now. A wall-time wait stays a wall-time wait of the
 * length asked (device time only changes what Date() reads): at a fixed rate it is not scaled,
 * and in stepped time, where the device clock stands still, it still ends. The length is clamped
 * to [0, STH_MAX_TRANSLATED_WAIT_SECONDS]: a deadline already past times out at once, and no
 * sum can overflow. Waits on another clock (CLOCK_MONOTONIC), waits outside app code, and the
 * time source's own waits (in_source) are passed through untouched. */

/// The longest wait a translated deadline asks of the kernel (about 31 years: "forever" in
/// practice, and real_now + this fits a 64-bit time_t many times over).
#define STH_MAX_TRANSLATED_WAIT_SECONDS 1000000000.0

/// `abstime` (a CLOCK_REALTIME deadline) as the kernel should see it: `*out` translated and
/// returned when the calling thread runs app code on a device clock, else `abstime` itself.
/// A malformed timespec is passed through for the real call to refuse (EINVAL).
static const struct timespec *real_deadline(const struct timespec *abstime, struct timespec *out) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L) return abstime;
    double device = device_now();
    if (device < 0) return abstime;
    clock_gettime_fn real = real_clock_gettime();
    struct timespec real_now;
    if (!real || real(CLOCK_REALTIME, &real_now) != 0) return abstime;
    double remaining = ((double)abstime->tv_sec - floor(device)) + ((double)abstime->tv_nsec / 1e9 - (device - floor(device)));
    if (!(remaining > 0)) remaining = 0;  // also NaN
    if (remaining > STH_MAX_TRANSLATED_WAIT_SECONDS) remaining = STH_MAX_TRANSLATED_WAIT_SECONDS;
    double whole = floor(remaining);
    long nsec = real_now.tv_nsec + (long)((remaining - whole) * 1e9);
    out->tv_sec = real_now.tv_sec + (time_t)whole + nsec / 1000000000L;
    out->tv_nsec = nsec % 1000000000L;
    return out;
}

/// Whether a condition variable waits on CLOCK_REALTIME (its pthread_condattr_setclock). glibc
/// (2.25 and later) keeps the clock in bit 1 of __wrefs, 0 = CLOCK_REALTIME
/// (nptl/pthread_cond_wait.c, __PTHREAD_COND_CLOCK_MONOTONIC_MASK); elsewhere assume realtime,
/// the default every caller we know of (Foundation's NSCondition) uses.
static int cond_is_realtime(pthread_cond_t *cond) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))
    return (__atomic_load_n(&cond->__data.__wrefs, __ATOMIC_RELAXED) & 2u) == 0;
#else
    (void)cond;
    return 1;
#endif
}

/// The next definition of `name` (libc's), looked up once per symbol.
#define REAL(type, name) \
    static type real_##name(void) { \
        static type f; \
        type g = __atomic_load_n(&f, __ATOMIC_ACQUIRE); \
        if (!g) { \
            g = (type)dlsym(RTLD_NEXT, #name); \
            __atomic_store_n(&f, g, __ATOMIC_RELEASE); \
        } \
        return g; \
    }

typedef int (*sem_timedwait_fn)(sem_t *, const struct timespec *);
typedef int (*sem_clockwait_fn)(sem_t *, clockid_t, const struct timespec *);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_clockwait_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*mutex_timedlock_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*mutex_clocklock_fn)(pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*rwlock_timedlock_fn)(pthread_rwlock_t *, const struct timespec *);
typedef int (*rwlock_clocklock_fn)(pthread_rwlock_t *, clockid_t, const struct timespec *);
typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);

REAL(sem_timedwait_fn, sem_timedwait)
REAL(sem_clockwait_fn, sem_clockwait)
REAL(cond_timedwait_fn, pthread_cond_timedwait)
REAL(cond_clockwait_fn, pthread_cond_clockwait)
REAL(mutex_timedlock_fn, pthread_mutex_timedlock)
REAL(mutex_clocklock_fn, pthread_mutex_clocklock)
REAL(rwlock_timedlock_fn, pthread_rwlock_timedrdlock)
REAL(rwlock_timedlock_fn, pthread_rwlock_timedwrlock)
REAL(rwlock_clocklock_fn, pthread_rwlock_clockrdlock)
REAL(rwlock_clocklock_fn, pthread_rwlock_clockwrlock)
REAL(clock_nanosleep_fn, clock_nanosleep)

/// Errors the pthread functions return (they do not set errno) when libc's is missing.
#define NO_REAL ENOSYS

int sem_timedwait(sem_t *sem, const struct timespec *abstime) {
    sem_timedwait_fn f = real_sem_timedwait();
    if (!f) { errno = ENOSYS; return -1; }
    struct timespec t;
    return f(sem, real_deadline(abstime, &t));
}

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime) {
    sem_clockwait_fn f = real_sem_clockwait();
    if (!f) { errno = ENOSYS; return -1; }
    struct timespec t;
    return f(sem, clock, clock == CLOCK_REALTIME ? real_deadline(abstime, &t) : abstime);
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime) {
    cond_timedwait_fn f = real_pthread_cond_timedwait();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(cond, mutex, cond && cond_is_realtime(cond) ? real_deadline(abstime, &t) : abstime);
}

int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime) {
    cond_clockwait_fn f = real_pthread_cond_clockwait();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(cond, mutex, clock, clock == CLOCK_REALTIME ? real_deadline(abstime, &t) : abstime);
}

int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime) {
    mutex_timedlock_fn f = real_pthread_mutex_timedlock();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(mutex, real_deadline(abstime, &t));
}

int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime) {
    mutex_clocklock_fn f = real_pthread_mutex_clocklock();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(mutex, clock, clock == CLOCK_REALTIME ? real_deadline(abstime, &t) : abstime);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *lock, const struct timespec *abstime) {
    rwlock_timedlock_fn f = real_pthread_rwlock_timedrdlock();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(lock, real_deadline(abstime, &t));
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *lock, const struct timespec *abstime) {
    rwlock_timedlock_fn f = real_pthread_rwlock_timedwrlock();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(lock, real_deadline(abstime, &t));
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *lock, clockid_t clock, const struct timespec *abstime) {
    rwlock_clocklock_fn f = real_pthread_rwlock_clockrdlock();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(lock, clock, clock == CLOCK_REALTIME ? real_deadline(abstime, &t) : abstime);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *lock, clockid_t clock, const struct timespec *abstime) {
    rwlock_clocklock_fn f = real_pthread_rwlock_clockwrlock();
    if (!f) return NO_REAL;
    struct timespec t;
    return f(lock, clock, clock == CLOCK_REALTIME ? real_deadline(abstime, &t) : abstime);
}

/// clock_nanosleep returns the error number (it does not set errno).
int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *remain) {
    clock_nanosleep_fn f = real_clock_nanosleep();
    if (!f) return NO_REAL;
    struct timespec t;
    int absolute_realtime = (flags & TIMER_ABSTIME) && (clock == CLOCK_REALTIME);
    return f(clock, flags, absolute_realtime ? real_deadline(request, &t) : request, remain);
}
