/*
** progress_line.c — the progress line on a terminal's stderr (progress_line.h).
*/
#include "progress_line.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/*
** How long quick work stays silent, and how often the line is redrawn at
** most (seconds).  Test hook (ripsim-testhooks only, RIPSIM_TEST_HOOKS):
** RIPSIM_TEST_PROGRESS_AT_ONCE=1 draws every update from the first, so a
** test sees the line whatever the machine's speed.
*/
static void delays(double *silent, double *every)
{
    *silent = 0.5;
    *every = 0.1;
#ifdef RIPSIM_TEST_HOOKS
    const char *v = getenv("RIPSIM_TEST_PROGRESS_AT_ONCE");
    if (v && strcmp(v, "1") == 0)
        *silent = *every = 0;
#endif
}

static void mmss(char *buf, size_t n, double s)
{
    long v = s > 0 && s < 1e7 ? (long)s : 0;
    if (v >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
    else
        snprintf(buf, n, "%ld:%02ld", v / 60, v % 60);
}

/* Draw the line; the caller holds p->mu. */
static void draw(rip_progress *p)
{
    char line[512], el[32], eta[32];
    double t = now(), elapsed = t - p->started;
    mmss(el, sizeof el, elapsed);
    if (p->total > 0) {
        double span = t - p->first_t, rate = span > 0 ? (double)(p->done - p->first_done) / span : 0;
        if (p->done > p->first_done && rate > 0)
            mmss(eta, sizeof eta, (double)(p->total - p->done) / rate);
        else
            snprintf(eta, sizeof eta, "-:--");
        snprintf(line, sizeof line, "%s: %lld/%lld %s (%.1f%%)  %.*f %s/s  ETA %s  %s", p->label,
                 (long long)p->done, (long long)p->total, p->unit, 100.0 * (double)p->done / (double)p->total,
                 rate < 10 ? 2 : 0, rate, p->unit, eta, p->what);
    } else {
        snprintf(line, sizeof line, "%s: %s elapsed  %s", p->label, el, p->what);
    }
    /* one terminal line: a wrapped line could not be redrawn with \r */
    struct winsize ws;
    size_t cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 80;
    size_t len = strlen(line);
    if (len >= cols)
        len = cols - 1;
    fprintf(stderr, "\r%.*s\033[K", (int)len, line);
    fflush(stderr);
    p->last = t;
    p->drawn = true;
}

void rip_progress_init(rip_progress *p, const char *label, const char *unit, bool enabled)
{
    memset(p, 0, sizeof *p);
    p->on = enabled && isatty(STDERR_FILENO) == 1;
    p->label = label;
    p->unit = unit ? unit : "";
    p->started = now();
    delays(&p->silent, &p->every);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
}

void rip_progress_update(rip_progress *p, int64_t done, int64_t total, const char *what)
{
    if (!p->on)
        return;
    pthread_mutex_lock(&p->mu);
    bool changed = what && strcmp(what, p->what) != 0;
    if (!p->seen) {
        /* the rate counts from the first report: what was done before it (a resumed run's layers,
        ** or the first step) would make it look faster; from the start when nothing was done yet */
        p->seen = true;
        p->first_done = done;
        p->first_t = done > 0 ? now() : p->started;
    }
    p->done = done;
    p->total = total;
    if (what)
        snprintf(p->what, sizeof p->what, "%s", what);
    /* quick work stays silent: nothing before half a second */
    double t = now();
    if (t - p->started >= p->silent && (changed || t - p->last >= p->every || (total > 0 && done >= total)))
        draw(p);
    pthread_mutex_unlock(&p->mu);
}

static void callback(void *ctx, int64_t done, int64_t total, const char *what)
{
    rip_progress_update(ctx, done, total, what);
}

rip_progress_cb rip_progress_callback(rip_progress *p)
{
    return (rip_progress_cb){.fn = p->on ? callback : NULL, .ctx = p};
}

static void *tick_main(void *arg)
{
    rip_progress *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        int rc = pthread_cond_timedwait(&p->cv, &p->mu, &until);
        if (rc == ETIMEDOUT && !p->stop)
            draw(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void rip_progress_tick(rip_progress *p)
{
    if (!p->on || p->ticking)
        return;
    p->ticking = pthread_create(&p->ticker, NULL, tick_main, p) == 0;
}

void rip_progress_clear(rip_progress *p)
{
    if (!p->on)
        return;
    pthread_mutex_lock(&p->mu);
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = false;
    }
    pthread_mutex_unlock(&p->mu);
}

void rip_progress_end(rip_progress *p)
{
    if (!p->on)
        return;
    if (p->ticking) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->ticker, NULL);
        p->ticking = false;
    }
    pthread_mutex_lock(&p->mu);
    if (p->drawn) {
        draw(p);
        fputc('\n', stderr);
        fflush(stderr);
        p->drawn = false;
    }
    pthread_mutex_unlock(&p->mu);
}
