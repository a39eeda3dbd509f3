/* Time: time() agrees with gettimeofday and clock_gettime(CLOCK_REALTIME),
 * CLOCK_MONOTONIC never goes backwards and advances across nanosleep,
 * clock_getres, CPU-time clocks, and calendar conversions of a fixed
 * timestamp with TZ=UTC set inside the program (gmtime, localtime, mktime,
 * strftime, timegm). No actual times or durations are printed. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

/* Returns a - b in nanoseconds. */
static long long diff_ns(struct timespec a, struct timespec b)
{
    return (a.tv_sec - b.tv_sec) * 1000000000LL + (a.tv_nsec - b.tv_nsec);
}

int main(void)
{
    time_t t0 = time(NULL);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    time_t t1 = time(NULL);
    printf("time after 2020: %d\n", t0 > 1577836800);
    printf("gettimeofday within [time, time+1]: %d usec-in-range=%d\n",
           tv.tv_sec >= t0 && tv.tv_sec <= t1 + 1, tv.tv_usec >= 0 && tv.tv_usec < 1000000);
    printf("realtime within: %d nsec-in-range=%d\n", rt.tv_sec >= t0 && rt.tv_sec <= t1 + 1,
           rt.tv_nsec >= 0 && rt.tv_nsec < 1000000000);

    struct timespec prev, now;
    clock_gettime(CLOCK_MONOTONIC, &prev);
    int backwards = 0;
    for (int i = 0; i < 10000; i++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (diff_ns(now, prev) < 0)
            backwards++;
        prev = now;
    }
    printf("monotonic went backwards %d times in 10000 reads\n", backwards);
    struct timespec before, after, req = {0, 30000000};
    clock_gettime(CLOCK_MONOTONIC, &before);
    int r = nanosleep(&req, NULL);
    clock_gettime(CLOCK_MONOTONIC, &after);
    long long slept = diff_ns(after, before);
    printf("nanosleep(30ms)=%d slept at least 30ms: %d, less than 5s: %d\n", r, slept >= 30000000,
           slept < 5000000000LL);
    req.tv_nsec = 2000000000;
    printf("nanosleep with bad nsec=%d\n", nanosleep(&req, NULL));
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    printf("monotonic resolution <= 1ms: %d\n", res.tv_sec == 0 && res.tv_nsec <= 1000000);
    clock_gettime(CLOCK_BOOTTIME, &now);
    printf("boottime positive: %d\n", now.tv_sec > 0 || now.tv_nsec > 0);

    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++)
        x += i * 0.5;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    printf("process cpu time advanced: %d\n", diff_ns(c1, c0) > 0);
    clock_t c = clock();
    printf("clock() non-negative: %d\n", c >= 0);

    setenv("TZ", "UTC", 1);
    tzset();
    time_t fixed = 1234567890;
    struct tm tm;
    gmtime_r(&fixed, &tm);
    char buf[128];
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %a %b %j %U %Z", &tm);
    printf("gmtime: %s wday=%d yday=%d\n", buf, tm.tm_wday, tm.tm_yday);
    localtime_r(&fixed, &tm);
    strftime(buf, sizeof buf, "%c|%x|%X|%A %B|%e|%I %p|%s", &tm);
    printf("localtime UTC: %s\n", buf);
    printf("asctime: %s", asctime(&tm));
    printf("ctime: %s", ctime(&fixed));
    struct tm in = {.tm_year = 100, .tm_mon = 1, .tm_mday = 29, .tm_hour = 12, .tm_isdst = -1};
    time_t mk = mktime(&in);
    printf("mktime 2000-02-29 12:00 = %lld wday=%d yday=%d\n", (long long)mk, in.tm_wday, in.tm_yday);
    struct tm norm = {.tm_year = 123, .tm_mon = 11, .tm_mday = 31 + 1, .tm_hour = 25, .tm_isdst = -1};
    mk = mktime(&norm);
    strftime(buf, sizeof buf, "%F %T", &norm);
    printf("mktime normalizes Dec 32 25:00 -> %s (%lld)\n", buf, (long long)mk);
    struct tm big = {.tm_year = 138, .tm_mon = 0, .tm_mday = 19, .tm_hour = 3, .tm_min = 14, .tm_sec = 8};
    printf("timegm past 2038: %lld\n", (long long)timegm(&big));
    time_t neg = -86400 * 365;
    gmtime_r(&neg, &tm);
    strftime(buf, sizeof buf, "%F %T", &tm);
    printf("before the epoch: %s\n", buf);
    printf("difftime: %.1f\n", difftime(fixed + 90, fixed));
    struct tm parsed;
    char *end = strptime("2021-07-04 09:08:07", "%Y-%m-%d %H:%M:%S", &parsed);
    printf("strptime rest='%s' -> %d/%d/%d %d:%d:%d\n", end ? end : "(null)", parsed.tm_year + 1900,
           parsed.tm_mon + 1, parsed.tm_mday, parsed.tm_hour, parsed.tm_min, parsed.tm_sec);
    return 0;
}
