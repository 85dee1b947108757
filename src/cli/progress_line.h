/*
** progress_line.h — the progress line of long-running commands, on stderr.
**
** Shown only when stderr is a terminal (tests and pipes see byte-identical
** output with or without it), in the style of `ripsim sweep`:
**   layers: 1200/5000 rows (24.0%)  35.2 rows/s  ETA 1:48  resnet50 layer3.0.conv1
** or, for work of unknown size, the elapsed time:
**   plan: 0:42 elapsed  milp on EfficientNetB0 (548 tensors, time limit 150 s)
** Work done within half a second prints nothing.  The line is redrawn in
** place ("\r", erase to end of line), at most ten times a second, and once a second by a ticker thread while one long step
** runs (rip_progress_tick), so the elapsed time and ETA keep moving.
*/
#ifndef RIPSIM_CLI_PROGRESS_H
#define RIPSIM_CLI_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/progress.h"

typedef struct rip_progress {
    bool on;                 /* stderr is a terminal and the command wants it */
    const char *label;       /* "layers", "tables", "plan" */
    const char *unit;        /* "rows", "models"; unused for unknown totals */
    double started, last;    /* monotonic seconds */
    double silent, every;    /* nothing drawn before silent s; redrawn at most once per every s */
    int64_t done, total;
    int64_t first_done;      /* done at the first update, at first_t: the rate counts from there, so */
    double first_t;          /* work done before this run (a resumed sweep) does not inflate it */
    bool seen;
    char what[160];
    bool drawn;              /* a line is on the screen */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t ticker;
    bool ticking, stop;
} rip_progress;

/* Start; on only when enabled and stderr is a terminal.  Prints nothing yet. */
void rip_progress_init(rip_progress *p, const char *label, const char *unit, bool enabled);

/* done of total (0: unknown), now working on what (may be NULL). */
void rip_progress_update(rip_progress *p, int64_t done, int64_t total, const char *what);

/* The library callback (core/progress.h) that feeds p. */
rip_progress_cb rip_progress_callback(rip_progress *p);

/* Redraw once a second from a thread until rip_progress_end. */
void rip_progress_tick(rip_progress *p);

/* Erase the line so that a message can be printed; the next update redraws it. */
void rip_progress_clear(rip_progress *p);

/*
** Stop the ticker and end the line (a final redraw and a newline) so that
** whatever is printed next starts on its own line.  Call before printing
** an error.  Safe to call twice.
*/
void rip_progress_end(rip_progress *p);

#endif
