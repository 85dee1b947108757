/*
** test_kernel_trace.c — Criterion suite for the trace engine of
** sim/kernel_order.h (a kernel's real read/write order run at a gap).
**
** Expected values: tiny traces checked by hand, and a brute force written
** here on its own: a trace stored as a list of scalar events, every d in
** [0, N_out] simulated by scanning, for every write, the rest of the list
** for a read of the input scalar the write lands on (quadratic, no last-read
** table, no pointer).  The gap is then the smallest d from which every
** larger d is safe (-1 when that is N_out).
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernel_order.h"
#include "pcg32.h"

/* A stored trace of scalar events (the brute force's own form). */
typedef struct ev { bool write; int64_t at; } ev;
typedef struct list { int64_t n_in, n_out; size_t n; ev e[4096]; } list;

/* The generator over a stored list: one event per scalar. */
static void list_gen(const void *ctx, rip_kt_sink *s)
{
    const list *l = ctx;
    for (size_t i = 0; i < l->n; i++) {
        if (l->e[i].write)
            rip_kt_write(s, l->e[i].at, 1, 1, 1);
        else
            rip_kt_read(s, l->e[i].at, 1, 1, 1);
    }
}

static bool brute_safe(const list *l, int64_t d)
{
    for (size_t w = 0; w < l->n; w++) {
        if (!l->e[w].write)
            continue;
        const int64_t i = l->e[w].at - d;
        for (size_t r = w + 1; r < l->n; r++)
            if (!l->e[r].write && l->e[r].at == i)
                return false;
    }
    return true;
}

static int64_t brute_gap(const list *l)
{
    int64_t g = l->n_out;
    while (g > 0 && brute_safe(l, g - 1))
        g--;
    return g == l->n_out ? -1 : g;
}

static int64_t engine_gap(const list *l)
{
    rip_kt_kernel k = { l->n_in, l->n_out, list_gen, l };
    int64_t gap = -7;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_kt_gap(&k, &gap, err), RIP_OK, "%s", err);
    return gap;
}

static void push(list *l, bool write, int64_t at)
{
    l->e[l->n++] = (ev){ write, at };
}

/* Elementwise, read i then write i: d = 0 is safe (the write lands on the scalar just read). */
Test(kernel_trace, hand_elementwise_in_place)
{
    static list l = { .n_in = 5, .n_out = 5 };
    for (int i = 0; i < 5; i++) {
        push(&l, false, i);
        push(&l, true, i);
    }
    cr_assert_eq(engine_gap(&l), 0);
}

/* Read everything, write everything, read everything again: no overlap is safe. */
Test(kernel_trace, hand_reread_after_writes_is_none)
{
    static list l = { .n_in = 4, .n_out = 3 };
    for (int i = 0; i < 4; i++)
        push(&l, false, i);
    for (int j = 0; j < 3; j++)
        push(&l, true, j);
    for (int i = 0; i < 4; i++)
        push(&l, false, i);
    cr_assert_eq(engine_gap(&l), -1);
}

/* Reversed copy: write j = 3 - i after reading i.  At d the write of j meets input j - d, read
** later iff j - d < 3 - j... worked by hand: d = 3 is needed (j = 3 at d = 2 lands on input 1,
** still to be read), d = 3: j lands on j - 3 < 0 for j < 3 and j = 3 on input 0, already read. */
Test(kernel_trace, hand_reversed_copy)
{
    static list l = { .n_in = 4, .n_out = 4 };
    for (int i = 0; i < 4; i++) {
        push(&l, false, i);
        push(&l, true, 3 - i);
    }
    cr_assert_eq(engine_gap(&l), 3);
    rip_kt_kernel k = { 4, 4, list_gen, &l };
    rip_ktrace *t = NULL;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_ktrace_new(&k, &t, err), RIP_OK);
    rip_kt_report rep;
    cr_assert_not(rip_ktrace_run(t, 2, &rep));
    cr_assert_eq(rep.event, 1);       /* the first write, of output 3, onto input 1 */
    cr_assert_eq(rep.out, 3);
    cr_assert_eq(rep.in, 1);
    cr_assert(rip_ktrace_run(t, 3, &rep));
    cr_assert_eq(rep.event, -1);
    rip_ktrace_free(t);
}

/* Block events are the scalar events they name: a 2x3 block read with stride 5. */
static void block_gen(const void *ctx, rip_kt_sink *s)
{
    (void)ctx;
    rip_kt_write(s, 0, 2, 1, 1);          /* outputs 0, 1 */
    rip_kt_read(s, 1, 2, 3, 5);           /* inputs 1 2, 6 7, 11 12 */
    rip_kt_write(s, 2, 1, 1, 1);
}

Test(kernel_trace, hand_blocks)
{
    /* Writes of 0, 1 with inputs 1..12 live: output 1 on input 1 at d = 0; the largest failing
    ** d is 1 - 1 = 0, so gap 1.  The last write (2) comes after every read. */
    rip_kt_kernel k = { 13, 3, block_gen, NULL };
    int64_t gap;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_kt_gap(&k, &gap, err), RIP_OK, "%s", err);
    cr_assert_eq(gap, 1);
}

static void bad_gen(const void *ctx, rip_kt_sink *s)
{
    (void)ctx;
    rip_kt_write(s, 2, 2, 1, 1);          /* output 3 of 3: outside */
}

Test(kernel_trace, write_outside_the_output_is_refused)
{
    rip_kt_kernel k = { 4, 3, bad_gen, NULL };
    int64_t gap = 5;
    char err[RIP_ERR_LEN] = "";
    cr_assert_eq(rip_kt_gap(&k, &gap, err), RIP_S_DATA);
    cr_assert_eq(gap, 5);
    cr_assert(err[0] != '\0');
    rip_kt_kernel none = { 4, 3, NULL, NULL };
    cr_assert_eq(rip_kt_gap(&none, &gap, err), RIP_S_DATA);
}

/* Random traces against the brute force, and the runs at every d against brute_safe. */
Test(kernel_trace, random_traces_match_brute_force)
{
    rip_pcg32 g;
    rip_pcg32_seed(&g, 20261202u, 21u);
    static list l;
    for (int trial = 0; trial < 3000; trial++) {
        l.n_in = rip_pcg32_range(&g, 1, 12);
        l.n_out = rip_pcg32_range(&g, 1, 12);
        l.n = (size_t)rip_pcg32_range(&g, 1, 40);
        for (size_t i = 0; i < l.n; i++) {
            const bool w = rip_pcg32_below(&g, 2);
            l.e[i] = (ev){ w, rip_pcg32_range(&g, 0, (w ? l.n_out : l.n_in) - 1) };
        }
        cr_assert_eq(engine_gap(&l), brute_gap(&l), "trial %d", trial);
        rip_kt_kernel k = { l.n_in, l.n_out, list_gen, &l };
        rip_ktrace *t = NULL;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_ktrace_new(&k, &t, err), RIP_OK);
        for (int64_t d = 0; d <= l.n_out; d++)
            cr_assert_eq(rip_ktrace_run(t, d, NULL), brute_safe(&l, d), "trial %d d %lld", trial, (long long)d);
        rip_ktrace_free(t);
    }
}
