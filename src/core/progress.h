/*
** progress.h — how long-running library work reports its progress.
**
** Library code never prints; work that can take seconds to minutes (a
** table over dozens of models, the seven simulations of a large layer)
** calls an optional callback instead, and the command line decides
** whether and how to show it (src/cli/progress.h: a line on a terminal's
** stderr, nothing otherwise).
*/
#ifndef RIPSIM_PROGRESS_H
#define RIPSIM_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct rip_progress_cb {
    /* done of total units finished (total 0: unknown); what: the unit of
    ** work starting now ("ResNet50, RiP MILP"), never NULL */
    void (*fn)(void *ctx, int64_t done, int64_t total, const char *what);
    void *ctx;
} rip_progress_cb;

/* Report through cb when there is one (cb or cb->fn may be NULL). */
static inline void rip_progress_report(const rip_progress_cb *cb, int64_t done, int64_t total, const char *what)
{
    if (cb != NULL && cb->fn != NULL)
        cb->fn(cb->ctx, done, total, what);
}

#endif
