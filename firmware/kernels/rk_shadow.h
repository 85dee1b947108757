/*
** rk_shadow.h — the shadow array of the instrumented (*_checked) in-place
** kernels: one tag per workspace byte.
**
** RK_TAG_INPUT marks a byte that still holds the input stored before the
** kernel started; a kernel write turns it into RK_TAG_WRITTEN; every other
** byte (the gap, anything past the stored input) is RK_TAG_FREE.  A checked
** kernel reports a read of any byte not tagged RK_TAG_INPUT.
*/
#ifndef RK_SHADOW_H
#define RK_SHADOW_H

#include "rk_types.h"

enum { RK_TAG_FREE = 0, RK_TAG_INPUT = 1, RK_TAG_WRITTEN = 2 };

/* Tag [first, first + n) RK_TAG_INPUT and the rest of [0, ws_size) RK_TAG_FREE.
** The caller guarantees 0 <= first, first + n <= ws_size. */
void rk_shadow_init(uint8_t *shadow, int64_t ws_size, int64_t first, int64_t n);

#endif
