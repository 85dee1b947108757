/*
** tflite_kernels_util.h — helpers shared by the files of the
** tflite_kernels suite (tests/test_tflite_kernels.c,
** tflite_kernels_softmax_mean.c, tflite_kernels_data.c): allocation,
** random int8 data, shapes, indices and floats.
*/
#ifndef RIPSIM_TEST_TFLITE_KERNELS_UTIL_H
#define RIPSIM_TEST_TFLITE_KERNELS_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_add.h"
#include "rk_concat.h"
#include "rk_depthwise.h"
#include "rk_mean.h"
#include "rk_pad.h"
#include "rk_prepare.h"
#include "rk_quantize.h"
#include "rk_resize_nearest.h"
#include "rk_softmax.h"
#include "rk_transpose.h"
#include "rk_upsample.h"
#include "splitmix.h"

/* ---------------------------------------------------------------- helpers */

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    return p;
}

/* n values uniform in [lo, hi] (splitmix.h's rng_state) into p. */
static inline void fill_s8(int8_t *p, size_t n, int lo, int hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rng_int(lo, hi);
}

/* The shape of the given rank with extents d[0..rank-1]. */
static inline rk_shape shape_of(int rank, const int32_t *d)
{
    rk_shape s = {.rank = rank};
    for (int i = 0; i < rank; i++)
        s.d[i] = d[i];
    return s;
}

/* The number of elements of s (the product of its extents). */
static inline int64_t count_of(rk_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.rank; i++)
        n *= s.d[i];
    return n;
}

/* A random shape of the given rank whose count stays at most max_count. */
static inline rk_shape random_shape(int rank, int max_extent, int64_t max_count)
{
    rk_shape s = {.rank = rank};
    do {
        for (int i = 0; i < rank; i++)
            s.d[i] = (int32_t)rng_int(1, max_extent);
    } while (count_of(s) > max_count);
    return s;
}

/* Row-major flat index of multi-index idx in shape s. */
static inline int64_t flat_index(rk_shape s, const int32_t *idx)
{
    int64_t f = 0;
    for (int i = 0; i < s.rank; i++)
        f = f * s.d[i] + idx[i];
    return f;
}

/* The multi-index of flat index f in shape s. */
static inline void multi_index(rk_shape s, int64_t f, int32_t *idx)
{
    for (int i = s.rank - 1; i >= 0; i--) {
        idx[i] = (int32_t)(f % s.d[i]);
        f /= s.d[i];
    }
}

/* A float with a random magnitude over many binades (and either sign). */
static inline float random_float(int lo_exp, int hi_exp)
{
    const double m = 1.0 + (double)(rng_next() >> 11) / 9007199254740992.0;
    const float v = (float)ldexp(m, (int)rng_int(lo_exp, hi_exp));
    return rng_int(0, 1) ? -v : v;
}

#endif
