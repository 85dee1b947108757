/*
** common.h — drawing helpers shared by the generator categories.
**
** Every draw goes through rip_pcg32_range / rip_pcg32_below, so a layer is a
** function of its stream alone.  No floating point.
**
** A layer is assembled from two rip_gen_axis (height, width): per axis the
** input extent, kernel, stride, dilation and the padding on each side.  The
** helpers either draw an axis freely (any input extent that yields an output)
** or fit the input extent so that the axis has a prescribed output size.
*/
#ifndef RIPSIM_GEN_COMMON_H
#define RIPSIM_GEN_COMMON_H

#include "generator.h"

/* Input spatial extent of every category: 1..RIP_GEN_MAX_EXTENT per axis. */
#define RIP_GEN_MAX_EXTENT 128

/* Small-biased extents draw half the time from [lo, RIP_GEN_SMALL_EXTENT]. */
#define RIP_GEN_SMALL_EXTENT 16

/*
** Tier 1: channels come from rip_gen_t1_channels and are capped so that
** h_in * w_in * max(cin, cout) <= RIP_GEN_T1_BUDGET scalars, as in real
** networks (channels grow as the grid shrinks): 128x128 takes up to 32
** channels, 32x32 up to 512, and the expansion layer's cout = t cin too.
*/
#define RIP_GEN_T1_BUDGET ((int64_t)1 << 19)

/* Tiers 2 and 3: cin and cout independently uniform in 1..RIP_GEN_SMALL_CH. */
#define RIP_GEN_SMALL_CH 64

extern const int64_t rip_gen_t1_channels[];
extern const size_t rip_gen_t1_channel_count;

/* One spatial axis of a layer. */
typedef struct rip_gen_axis {
    int64_t in, k, s, d, p_lo, p_hi;   /* p_lo: top/left, p_hi: bottom/right */
} rip_gen_axis;

/* d (k - 1) + 1 */
int64_t rip_gen_keff(int64_t k, int64_t d);

/* The axis's output size floor((in + p_lo + p_hi - keff) / s) + 1 (in >= 1,
** padded extent >= keff). */
int64_t rip_gen_axis_out(const rip_gen_axis *a);

/* True with probability num/den. */
bool rip_gen_chance(rip_pcg32 *g, uint32_t num, uint32_t den);

/* Uniform element of v[0..n-1], n >= 1. */
int64_t rip_gen_pick(rip_pcg32 *g, const int64_t *v, size_t n);

/* Uniform in [lo, hi], but half the time in [lo, min(hi, max(lo, 16))]:
** small values are where the defects live, large ones must appear too. */
int64_t rip_gen_biased(rip_pcg32 *g, int64_t lo, int64_t hi);

/* A small-biased input extent in [max(lo, 1), 128]. */
int64_t rip_gen_extent(rip_pcg32 *g, int64_t lo);

/* A tier-1 input extent in [max(lo, 1), 128]: half the time a size real
** networks use (7, 8, 14, 16, 28, 32, 56, 64, 112, 128, those >= lo), half
** the time uniform. */
int64_t rip_gen_t1_extent(rip_pcg32 *g, int64_t lo);

/* A tier-1 input grid: both extents >= lo; square three times in four. */
void rip_gen_t1_grid(rip_pcg32 *g, int64_t lo, int64_t *h, int64_t *w);

/* Largest channel count a tier-1 layer on an h x w input may have. */
int64_t rip_gen_t1_cap(int64_t h, int64_t w);

/* A uniform element of rip_gen_t1_channels that is <= cap (cap >= 3). */
int64_t rip_gen_t1_channel(rip_pcg32 *g, int64_t cap);

/* Uniform in 1..RIP_GEN_SMALL_CH. */
int64_t rip_gen_small_channel(rip_pcg32 *g);

/*
** General parameters of one axis (input extent not set): k in 1..7, s in
** 1..3 (1 half the time), d in 1..3 (1 three times in five), padding one of
** none / floor(keff/2) both sides / equal random in [0, keff-1] / each side
** independently random in [0, keff-1], each a quarter of the time.
*/
void rip_gen_axis_general(rip_pcg32 *g, rip_gen_axis *a);

/* Symmetric padding on each axis, one mode for both: none, floor(keff/2)
** ("same"), or random in [0, keff-1] per axis, each a third of the time. */
void rip_gen_pad_modes(rip_pcg32 *g, rip_gen_axis *h, rip_gen_axis *w);

/* Largest output size the axis reaches with in <= 128 and its padding. */
int64_t rip_gen_axis_max_out(const rip_gen_axis *a);

/*
** Set a->in so that the axis has exactly `out` outputs (1 <= out <=
** rip_gen_axis_max_out): in = (out-1) s + keff - p_lo - p_hi + r with r drawn
** in [0, s-1] as far as 1 <= in <= 128 allows.  If the padding alone exceeds
** what `out` outputs can cover, the larger side is reduced until in >= 1 is
** possible.  Returns RIP_OK; RIP_S_INTERNAL (message: rip_generator_error)
** when out is outside 1..rip_gen_axis_max_out, a bug in the category.
*/
rip_status rip_gen_axis_fit(rip_pcg32 *g, rip_gen_axis *a, int64_t out);

/* Set a->in freely: small-biased in [max(1, keff - p_lo - p_hi), 128]. */
void rip_gen_axis_free(rip_pcg32 *g, rip_gen_axis *a);

/* Set both sides of the axis's padding to p. */
void rip_gen_axis_pad(rip_gen_axis *a, int64_t p);

/*
** Fill *L from the channels and the two axes and derive it.  The categories
** construct valid layers, so a derive failure is a bug in a category (the
** test suite draws every category 1,000 times): it returns RIP_S_INTERNAL
** with rip_layer_derive's reason in rip_generator_error(), *L untouched.
** Returns RIP_OK otherwise.
*/
rip_status rip_gen_assemble(rip_layer *L, int64_t cin, int64_t cout,
                            const rip_gen_axis *h, const rip_gen_axis *w);

/* Return a helper's failed status from draw(): RIP_GEN_TRY(rip_gen_axis_fit(...)). */
#define RIP_GEN_TRY(call)                                                                                    \
    do {                                                                                                     \
        const rip_status rip_gen_try_ = (call);                                                              \
        if (rip_gen_try_ != RIP_OK)                                                                          \
            return rip_gen_try_;                                                                             \
    } while (0)

/* The axes of a layer (height, width), e.g. to test an axis property. */
void rip_gen_axes_of(const rip_layer *L, rip_gen_axis *h, rip_gen_axis *w);

#endif
