#ifndef STH_DEVICE_TIME_H
#define STH_DEVICE_TIME_H

// Seed code reads the time with Date(), i.e. clock_gettime(CLOCK_REALTIME): on a phone that is
// the device's clock. In a stand-in it must be the device clock of docs/PROTOCOL.md §2 (virtual
// time), not the host's. This library interposes clock_gettime, gettimeofday and time for the
// executable that links it: while the calling thread is inside sth_device_time_enter/leave (the
// app's or extension's own code, run by StandInKit), CLOCK_REALTIME answers the device time from
// the registered source; everywhere else, and for every other clock, the real one answers.
// It also interposes the waits that take an absolute CLOCK_REALTIME deadline (sem_timedwait,
// pthread_cond_timedwait, pthread_mutex_timedlock, their *clock* forms, the rwlock ones and
// clock_nanosleep(TIMER_ABSTIME)): on such a thread the deadline was computed from device time,
// and the kernel is given the real deadline just as far away (docs/PROTOCOL.md §2, "Waits in app
// code"), so a wall-time wait stays a wall-time wait.

/// Device unix seconds, or a negative number when unknown (then the real time answers).
typedef double (*sth_device_time_source)(void);

/// The source of device time (once, at start-up; NULL turns it off).
void sth_device_time_set_source(sth_device_time_source source);
/// The calling thread runs app code from now on (nests).
void sth_device_time_enter(void);
void sth_device_time_leave(void);
/// Whether the calling thread is inside enter/leave (for tests).
int sth_device_time_active(void);

#endif
