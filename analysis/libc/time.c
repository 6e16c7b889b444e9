// agx's model of clocks: the time is an input. Seconds are non-negative, microseconds
// and nanoseconds within their second; successive readings are independent (a
// program that assumes a clock never goes back gets that assumption checked).

struct __agx_timeval {
    long sec;
    long usec;
};

long time(long *t)
{
    long v = __VERIFIER_nondet_long();
    __VERIFIER_assume(v >= 0);
    if (t)
        *t = v;
    return v;
}

int gettimeofday(struct __agx_timeval *tv, void *tz)
{
    long us = __VERIFIER_nondet_long();
    __VERIFIER_assume(us >= 0 && us < 1000000);
    if (tv) {
        tv->sec = time(0);
        tv->usec = us;
    }
    return 0;
}

// Both members of struct timespec are `long`, as in struct timeval.
int clock_gettime(int id, struct __agx_timeval *ts)
{
    long ns = __VERIFIER_nondet_long();
    __VERIFIER_assume(ns >= 0 && ns < 1000000000);
    ts->sec = time(0);
    ts->usec = ns;
    return 0;
}

long clock(void)
{
    return time(0);
}
