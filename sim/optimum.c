/*
** optimum.c — the traversal-optimal gap: the smallest herringbone_taps_reader
** gap over every visiting order of the output pixels, by exact search.
**
** Why a search over sets suffices.  Under the reader rule an input pixel
** gives its cin slots back after its last reader, i.e. once every output
** pixel that reads it has been produced.  So before the next pixel is
** produced, with the set S produced so far, the pool has
**     delta + R0 + cin * rel(S) - cout * |S|
** free slots (R0: scalars no output reads; rel(S): read input pixels whose
** readers all lie in S), whatever order produced S, and it needs cout.  An
** order is a chain {} = S_0 < S_1 < ... < S_P = all, and it completes iff
** delta >= f(S_t) = cout (|S_t| + 1) - cin rel(S_t) - R0 for t < P.  The
** optimum is max(0, min over chains of max_t f(S_t)): a bottleneck shortest
** path over subsets,
**     V(S) = max(f(S), min_{p in S} V(S \ {p})),   V({}) = f({}),
**     optimum = max(0, min_p V(all \ {p})).
** Values are clamped to [lower, upper + 1]: nothing below the live-bytes
** lower bound changes the answer, and nothing above the best known order
** (herringbone or row-major, run by the simulator) can be on an optimal
** chain, so such states are dead at once (the pruning).  rel(S) comes from
** rel(S minus its lowest pixel p) plus the read input pixels whose reader
** set contains p and lies in S.
**
** Nothing here trusts itself: the order read back from V is run by the
** simulator (rip_sim_new_order), which must complete at the optimum and
** fail one below it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimum.h"
#include "sim.h"

/* A read input pixel class: the set of output pixels that read it, and how
** many input pixels have exactly that set. */
typedef struct {
    uint32_t mask;
    int64_t count;
} reader_set;

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_set(const void *a, const void *b)
{
    const uint32_t x = ((const reader_set *)a)->mask, y = ((const reader_set *)b)->mask;
    return x < y ? -1 : x > y;
}

/*
** The reader sets of L's read input pixels, grouped by set, into *sets
** (*n_sets of them, malloc'd), and *unread = padded input pixels no output
** reads.  Every tap of every output is enumerated as (input pixel, output
** bit) and sorted, so nothing is allocated per input pixel.  Returns
** RIP_OK, RIP_S_NOMEM, or RIP_S_DATA with err when the taps are too many.
*/
static rip_status reader_sets(const rip_layer *L, reader_set **sets, int64_t *n_sets, int64_t *unread,
                              char err[RIP_ERR_LEN])
{
    const int64_t P = L->h_out * L->w_out;
    int64_t n_taps;
    if (__builtin_mul_overflow(P, L->k_h * L->k_w, &n_taps) || n_taps > (INT64_C(1) << 26)) {
        snprintf(err, RIP_ERR_LEN, "the exact search enumerates every tap of every output: %lld pixels x "
                 "%lldx%lld taps is too many (at most 2^26)", (long long)P, (long long)L->k_h, (long long)L->k_w);
        return RIP_S_DATA;
    }
    rip_status st = RIP_S_NOMEM;
    uint64_t *pairs = malloc((size_t)n_taps * sizeof *pairs);
    reader_set *out = NULL;
    if (pairs == NULL)
        goto done;
    int64_t n = 0;
    for (int64_t r = 0; r < L->h_out; r++)
        for (int64_t c = 0; c < L->w_out; c++)
            for (int64_t a = 0; a < L->k_h; a++)
                for (int64_t b = 0; b < L->k_w; b++) {
                    const uint64_t x = (uint64_t)((r * L->s_h + a * L->d_h) * L->w_p + c * L->s_w + b * L->d_w);
                    pairs[n++] = x << 5 | (uint64_t)(r * L->w_out + c); /* P <= 32: 5 bits */
                }
    qsort(pairs, (size_t)n, sizeof *pairs, cmp_u64);
    if ((out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out)) == NULL)
        goto done;
    int64_t m = 0;
    for (int64_t i = 0; i < n;) {
        uint32_t mask = 0;
        int64_t j = i;
        for (; j < n && pairs[j] >> 5 == pairs[i] >> 5; j++)
            mask |= UINT32_C(1) << (pairs[j] & 31);
        out[m].mask = mask;
        out[m++].count = 1;
        i = j;
    }
    *unread = L->h_p * L->w_p - m;
    qsort(out, (size_t)m, sizeof *out, cmp_set);
    int64_t k = 0;
    for (int64_t i = 0; i < m; i++) {
        if (k > 0 && out[k - 1].mask == out[i].mask)
            out[k - 1].count++;
        else
            out[k++] = out[i];
    }
    *sets = out;
    *n_sets = k;
    out = NULL;
    st = RIP_OK;
done:
    free(pairs);
    free(out);
    if (st == RIP_S_NOMEM)
        snprintf(err, RIP_ERR_LEN, "out of memory in the exact search's reader sets");
    return st;
}

/* The herringbone_taps_reader truth of L in the given order (NULL: the
** herringbone order), by the simulator.  RIP_OK, RIP_S_NOMEM,
** RIP_S_INTERNAL, with err. */
static rip_status order_gap(const rip_layer *L, const int64_t *order, int64_t *gap, char err[RIP_ERR_LEN])
{
    rip_sim *s = rip_sim_new_order(L, RIP_CONFIG_HB_TAPS_READER, RIP_ENGINE_FAST, order);
    if (s == NULL) {
        snprintf(err, RIP_ERR_LEN, "out of memory while simulating a visiting order");
        return RIP_S_NOMEM;
    }
    const int rc = rip_sim_search(s, RIP_SEARCH_BRACKET, gap, err);
    rip_sim_free(s);
    return rc == 0 ? RIP_OK : RIP_S_INTERNAL;
}

/*
** The search proper, for one width of the clamped value table (uint16_t or
** uint32_t): V[S] - lower, dead = upper + 1 - lower.  rel[] counts the
** read input pixels released by S.  by_bit[p][0..n_by[p]) are the reader
** sets containing pixel p.  Returns the clamped value of the optimum and
** writes the order (visit order) into order[]; *states counts the subsets
** whose minimum was taken.
*/
#define DEFINE_DP(T, NAME)                                                                                     \
    static int64_t NAME(T *V, uint16_t *rel, int P, int64_t cin, int64_t cout, int64_t R0, int64_t lower,    \
                        int64_t dead, reader_set *const *by_bit, const int64_t *n_by, int64_t *order,        \
                        int64_t *states)                                                                      \
    {                                                                                                          \
        const uint32_t full = (uint32_t)((UINT64_C(1) << P) - 1);                                           \
        int64_t f0 = cout - R0 - lower;                                                                        \
        rel[0] = 0;                                                                                            \
        V[0] = (T)(f0 < 0 ? 0 : f0 > dead ? dead : f0);                                                        \
        for (uint32_t S = 1; S < full; S++) {                                                                  \
            const int p = __builtin_ctz(S);                                                                    \
            int64_t r = rel[S & (S - 1)];                                                                      \
            for (int64_t i = 0; i < n_by[p]; i++)                                                              \
                if ((by_bit[p][i].mask & ~S) == 0)                                                             \
                    r += by_bit[p][i].count;                                                                   \
            rel[S] = (uint16_t)r;                                                                              \
            int64_t f = cout * (__builtin_popcount(S) + 1) - cin * r - R0 - lower;                            \
            f = f < 0 ? 0 : f > dead ? dead : f;                                                               \
            if (f == dead) {                                                                                   \
                V[S] = (T)dead;                                                                                \
                continue;                                                                                      \
            }                                                                                                  \
            (*states)++;                                                                                       \
            int64_t best = dead;                                                                               \
            for (uint32_t rest = S; rest != 0 && best > f; rest &= rest - 1) {                                 \
                const int64_t v = V[S & ~(rest & -rest)];                                                      \
                if (v < best)                                                                                  \
                    best = v;                                                                                  \
            }                                                                                                  \
            V[S] = (T)(best > f ? best : f);                                                                   \
        }                                                                                                      \
        int64_t ans = dead;                                                                                    \
        int last = 0;                                                                                          \
        for (int p = P - 1; p >= 0; p--) /* ties: the highest pixel last, so orders read forward */          \
            if (V[full & ~(UINT32_C(1) << p)] < ans) {                                                         \
                ans = V[full & ~(UINT32_C(1) << p)];                                                           \
                last = p;                                                                                      \
            }                                                                                                  \
        /* read the chain back: from each set, a predecessor within ans */                                    \
        uint32_t S = full;                                                                                     \
        order[P - 1] = last;                                                                                   \
        S &= ~(UINT32_C(1) << last);                                                                           \
        for (int t = P - 2; t >= 0; t--) {                                                                     \
            int pick = -1;                                                                                     \
            for (int p = P - 1; p >= 0 && pick < 0; p--)                                                       \
                if ((S >> p & 1) && V[S & ~(UINT32_C(1) << p)] <= ans)                                         \
                    pick = p;                                                                                  \
            if (pick < 0)                                                                                      \
                return -1;                                                                                     \
            order[t] = pick;                                                                                   \
            S &= ~(UINT32_C(1) << pick);                                                                       \
        }                                                                                                      \
        return ans;                                                                                            \
    }

DEFINE_DP(uint16_t, dp16)
DEFINE_DP(uint32_t, dp32)

#define OPT_OOM "out of memory in the exact search"

/* The live-bytes lower bound: with k pixels produced, at most the read
** input pixels with <= k readers can have been released. */
static int64_t live_lower(const reader_set *sets, int64_t n_sets, int P, int64_t cin, int64_t cout, int64_t R0)
{
    int64_t lower = 0;
    for (int k = 0; k < P; k++) {
        int64_t freed = 0;
        for (int64_t i = 0; i < n_sets; i++)
            if (__builtin_popcount(sets[i].mask) <= k)
                freed += sets[i].count;
        const int64_t need = cout * (k + 1) - cin * freed - R0;
        if (need > lower)
            lower = need;
    }
    return lower;
}

/*
** The upper bounds: the herringbone and row-major orders of L, by the
** simulator, into o->hb_gap and o->row_gap; order[] (P entries) is left
** holding the row-major order.  RIP_OK; RIP_S_NOMEM, RIP_S_INTERNAL with
** err (order_gap).
*/
static rip_status upper_bounds(const rip_layer *L, int64_t *order, rip_optimum *o, char err[RIP_ERR_LEN])
{
    rip_status st = order_gap(L, NULL, &o->hb_gap, err);
    if (st != RIP_OK)
        return st;
    rip_row_major_order(L->h_out, L->w_out, order);
    return order_gap(L, order, &o->row_gap, err);
}

/*
** The search between lower < upper: reader sets indexed by pixel, the
** clamped value table over the 2^P subsets (16-bit when it fits), then
** the chain read back into order[] and the optimum into *ans (lower + the
** clamped value).  *states counts the subsets evaluated.  RIP_OK;
** RIP_S_NOMEM with err (naming the table's size when that is what failed);
** RIP_S_INTERNAL when no order within upper is found.
*/
static rip_status dp_search(const reader_set *sets, int64_t n_sets, int P, int64_t cin, int64_t cout, int64_t R0,
                            int64_t lower, int64_t upper, int64_t *order, int64_t *states, int64_t *ans,
                            char err[RIP_ERR_LEN])
{
    rip_status st = RIP_S_NOMEM;
    reader_set **by_bit = NULL, *flat = NULL;
    int64_t *n_by = NULL;
    void *V = NULL;
    uint16_t *rel = NULL;
    /* reader sets by pixel: by_bit[p] lists the sets containing p */
    int64_t total = 0;
    if ((n_by = calloc((size_t)P, sizeof *n_by)) == NULL || (by_bit = calloc((size_t)P, sizeof *by_bit)) == NULL)
        goto done;
    for (int64_t i = 0; i < n_sets; i++)
        total += __builtin_popcount(sets[i].mask);
    if ((flat = malloc((size_t)(total > 0 ? total : 1) * sizeof *flat)) == NULL)
        goto done;
    int64_t at = 0;
    for (int p = 0; p < P; p++) {
        by_bit[p] = flat + at;
        for (int64_t i = 0; i < n_sets; i++)
            if (sets[i].mask >> p & 1)
                flat[at + n_by[p]++] = sets[i];
        at += n_by[p];
    }
    const int64_t dead = upper + 1 - lower;
    const size_t n_states = (size_t)1 << P;
    const bool narrow = dead <= UINT16_MAX;
    if ((rel = malloc(n_states * sizeof *rel)) == NULL ||
        (V = malloc(n_states * (narrow ? sizeof(uint16_t) : sizeof(uint32_t)))) == NULL) {
        snprintf(err, RIP_ERR_LEN, "out of memory: the exact search over %d pixels needs %zu MiB", P,
                 (n_states * (narrow ? 4 : 6)) >> 20);
        goto done;
    }
    const int64_t v = narrow ? dp16(V, rel, P, cin, cout, R0, lower, dead, by_bit, n_by, order, states)
                             : dp32(V, rel, P, cin, cout, R0, lower, dead, by_bit, n_by, order, states);
    if (v < 0 || v >= dead) {
        snprintf(err, RIP_ERR_LEN, "internal error: the exact search found no order within the "
                 "herringbone bound %lld", (long long)upper);
        st = RIP_S_INTERNAL;
        goto done;
    }
    *ans = lower + v;
    st = RIP_OK;
done:
    free(flat);
    free(by_bit);
    free(n_by);
    free(V);
    free(rel);
    return st;
}

/* The simulator decides: in order, L completes at gap ans and fails at
** ans - 1, and ans <= hb_gap.  RIP_OK; RIP_S_NOMEM (err as set by the
** caller); RIP_S_INTERNAL with err. */
static rip_status confirm(const rip_layer *L, const int64_t *order, int64_t ans, int64_t hb_gap,
                          char err[RIP_ERR_LEN])
{
    rip_sim *check = rip_sim_new_order(L, RIP_CONFIG_HB_TAPS_READER, RIP_ENGINE_FAST, order);
    if (check == NULL)
        return RIP_S_NOMEM;
    rip_status st = RIP_OK;
    if (!rip_sim_confirm(check, ans) || ans > hb_gap) {
        snprintf(err, RIP_ERR_LEN, "internal error: the simulator does not confirm the optimal order at gap "
                 "%lld (herringbone %lld)", (long long)ans, (long long)hb_gap);
        st = RIP_S_INTERNAL;
    }
    rip_sim_free(check);
    return st;
}

/*
** Contract (optimum.h).  The stages: the grid's size, the reader sets,
** the upper and lower bounds, the search when they differ, the
** simulator's confirmation.  One cleanup path; every early failure leaves
** err set and *o zeroed.
*/
rip_status rip_optimum_search(const rip_layer *L, int64_t max_pixels, rip_optimum *o, char err[RIP_ERR_LEN])
{
    rip_status st = RIP_S_NOMEM;
    reader_set *sets = NULL;
    int64_t *order = NULL;
    memset(o, 0, sizeof *o);
    snprintf(err, RIP_ERR_LEN, OPT_OOM);

    if (max_pixels < 1 || max_pixels > RIP_OPTIMUM_MAX_PIXELS)
        max_pixels = RIP_OPTIMUM_MAX_PIXELS;
    const int64_t P64 = L->h_out * L->w_out;
    if (P64 > max_pixels) {
        snprintf(err, RIP_ERR_LEN, "output grid %lldx%lld has %lld pixels; the exact search keeps 2^P states "
                 "and is limited to %lld pixels (--max-pixels, at most %d)", (long long)L->h_out,
                 (long long)L->w_out, (long long)P64, (long long)max_pixels, RIP_OPTIMUM_MAX_PIXELS);
        st = RIP_S_DATA;
        goto done;
    }
    const int P = (int)P64;
    int64_t n_sets = 0, unread = 0;
    if ((st = reader_sets(L, &sets, &n_sets, &unread, err)) != RIP_OK)
        goto done;
    st = RIP_S_NOMEM;
    snprintf(err, RIP_ERR_LEN, OPT_OOM);
    int64_t n_read = L->h_p * L->w_p - unread;
    if (n_read > UINT16_MAX) {
        snprintf(err, RIP_ERR_LEN, "the exact search counts read input pixels in 16 bits; this layer reads "
                 "%lld", (long long)n_read);
        st = RIP_S_DATA;
        goto done;
    }
    const int64_t cin = L->cin, cout = L->cout, R0 = unread * cin;

    if ((order = malloc((size_t)P * sizeof *order)) == NULL)
        goto done;
    if ((st = upper_bounds(L, order, o, err)) != RIP_OK)
        goto done;
    st = RIP_S_NOMEM;
    snprintf(err, RIP_ERR_LEN, OPT_OOM);
    const bool hb_best = o->hb_gap <= o->row_gap;
    const int64_t upper = hb_best ? o->hb_gap : o->row_gap;
    const int64_t lower = live_lower(sets, n_sets, P, cin, cout, R0);
    o->lower = lower;
    o->n_pix = P64;

    int64_t ans = 0;
    if (lower >= upper) { /* the bounds meet: the better known order is optimal */
        if (hb_best)
            rip_herringbone_order(L->h_out, L->w_out, order);
        ans = upper;
    } else if ((st = dp_search(sets, n_sets, P, cin, cout, R0, lower, upper, order, &o->states, &ans, err)) !=
               RIP_OK) {
        goto done;
    }
    if ((st = confirm(L, order, ans, o->hb_gap, err)) != RIP_OK)
        goto done;
    o->gap = ans;
    o->order = order;
    order = NULL;
    st = RIP_OK;
done:
    free(sets);
    free(order);
    if (st != RIP_OK)
        memset(o, 0, sizeof *o);
    return st;
}

/* Contract (optimum.h). */
void rip_optimum_free(rip_optimum *o)
{
    if (o == NULL)
        return;
    free(o->order);
    o->order = NULL;
}
