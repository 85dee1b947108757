/*
** rk_instrument.h — the compile-time instrumentation of the in-place
** kernels (internal).  A kernel source that includes it is compiled twice:
**
**   release (RK_INSTRUMENT undefined): RK_READ_CHECK and RK_AT_PIXEL expand
**     to nothing and RK_WRITE to a plain store, RK_TRK_PARAM/RK_TRK_ARG to
**     nothing: the release function has no extra argument and no extra
**     branch.
**   instrumented (-DRK_INSTRUMENT): every public function name goes through
**     RK_NAME and gains the suffix _checked; the core functions take a
**     tracker; reads are checked against the shadow tags (rk_shadow.h) and
**     writes at or past ws_size are reported, not performed.
**
** RK_READ_CHECK and RK_WRITE return RK_OK from the enclosing function when
** the tracker is told to stop at the first violation and has found one.
*/
#ifndef RK_INSTRUMENT_H
#define RK_INSTRUMENT_H

#include "rk_shadow.h"
#include "rk_types.h"

#ifdef RK_INSTRUMENT

typedef struct rk_tracker {
    uint8_t *shadow;
    int64_t ws_size;
    int64_t writes;      /* output scalar writes done or refused so far */
    int32_t r, c;        /* output pixel being computed */
    bool stop;           /* stop at the first violation */
    rk_violation *v;
} rk_tracker;

static inline void rk_trk_record(rk_tracker *t, int64_t address, bool overflow)
{
    rk_violation *v = t->v;
    if (!v->found) {
        v->found = true;
        v->step = t->writes;
        v->pixel_r = t->r;
        v->pixel_c = t->c;
        v->address = address;
        v->overflow = overflow;
    }
    v->count++;
}

static inline void rk_trk_start(rk_tracker *t, uint8_t *shadow, int64_t ws_size, bool stop, rk_violation *v)
{
    t->shadow = shadow;
    t->ws_size = ws_size;
    t->writes = 0;
    t->r = t->c = -1;
    t->stop = stop;
    t->v = v;
    v->found = false;
    v->step = -1;
    v->pixel_r = v->pixel_c = -1;
    v->address = -1;
    v->overflow = false;
    v->count = 0;
}

/* false: stop now.  The run is first tested as a whole (one OR over its
** tags, which the compiler vectorizes); only a run holding a bad byte, or
** reaching outside the workspace, is walked byte by byte, so the record of
** the first violation and the count are those of a byte-by-byte check. */
static inline bool rk_trk_read(rk_tracker *t, int64_t address, int64_t n)
{
    if (address >= 0 && n <= t->ws_size - address) {
        const uint8_t *s = t->shadow + address;
        uint8_t bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad |= (uint8_t)(s[i] ^ RK_TAG_INPUT);
        if (bad == 0)
            return true;
    }
    for (int64_t i = 0; i < n; i++) {
        const int64_t a = address + i;
        if (a < 0 || a >= t->ws_size || t->shadow[a] != RK_TAG_INPUT) {
            rk_trk_record(t, a, false);
            if (t->stop)
                return false;
        }
    }
    return true;
}

/* false: stop now. */
static inline bool rk_trk_write(rk_tracker *t, int8_t *ws, int64_t address, int8_t value)
{
    if (address < 0 || address >= t->ws_size) {
        rk_trk_record(t, address, true);
        t->writes++;
        return !t->stop;
    }
    t->shadow[address] = RK_TAG_WRITTEN;
    ws[address] = value;
    t->writes++;
    return true;
}

#define RK_NAME(name) name##_checked
#define RK_TRK_PARAM , rk_tracker *trk
#define RK_TRK_ARG , trk
#define RK_AT_PIXEL(rr, cc) (trk->r = (rr), trk->c = (cc))
#define RK_READ_CHECK(addr, n)                                                                          \
    do {                                                                                                \
        if (!rk_trk_read(trk, (addr), (n)))                                                             \
            return RK_OK;                                                                               \
    } while (0)
#define RK_WRITE(ws, addr, value)                                                                       \
    do {                                                                                                \
        if (!rk_trk_write(trk, (ws), (addr), (value)))                                                  \
            return RK_OK;                                                                               \
    } while (0)

#else

#define RK_NAME(name) name
#define RK_TRK_PARAM
#define RK_TRK_ARG
#define RK_AT_PIXEL(rr, cc) ((void)0)
#define RK_READ_CHECK(addr, n) ((void)0)
#define RK_WRITE(ws, addr, value) ((ws)[(addr)] = (value))

#endif

#endif
