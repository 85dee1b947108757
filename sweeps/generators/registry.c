/*
** registry.c — the generator categories in Tab. 5 order, and the sweep's
** assignment of layers to categories (generator.h).
**
** Each category is one file in this folder defining
**     const rip_generator rip_gencat_NAME = { ... };
** and one line X(NAME) in list.def.  The order is the paper's Tab. 5
** order; it fixes the slot layout of rip_generator_for_layer, so reordering,
** adding or reweighting a category changes which layer idx every category
** draws (and the weights must still sum to 100).
*/
#include "generator.h"

#include <stdio.h>
#include <string.h>

#define X(n) extern const rip_generator rip_gencat_##n;
#include "list.def"
#undef X

static const rip_generator *const all[] = {
#define X(n) &rip_gencat_##n,
#include "list.def"
#undef X
};
enum { N_GENERATORS = sizeof all / sizeof all[0] };

const rip_generator *const *rip_generators(size_t *count)
{
    *count = N_GENERATORS;
    return all;
}

const rip_generator *rip_generator_by_name(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < N_GENERATORS; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const rip_generator *rip_generator_for_layer(int64_t idx)
{
    /* (idx * 37) mod 100 in [0, 100) for any idx, without overflow */
    int64_t slot = ((idx % 100) * 37) % 100;
    if (slot < 0)
        slot += 100;
    int64_t cum = 0;
    for (size_t i = 0; i < N_GENERATORS; i++) {
        cum += all[i]->weight;
        if (slot < cum)
            return all[i];
    }
    return all[N_GENERATORS - 1];   /* unreachable while the weights sum to 100 */
}

rip_status rip_sweep_draw_checked(uint64_t seed, int64_t idx, rip_layer *L, const rip_generator **gen,
                                  char err[RIP_ERR_LEN])
{
    *gen = rip_generator_for_layer(idx);
    rip_pcg32 g;
    rip_pcg32_seed(&g, seed, (uint64_t)idx);
    const rip_status s = (*gen)->draw(&g, L);
    if (s != RIP_OK)
        snprintf(err, RIP_ERR_LEN, "generator %s: %.400s", (*gen)->name, rip_generator_error());
    return s;
}

const rip_generator *rip_sweep_draw(uint64_t seed, int64_t idx, rip_layer *L)
{
    const rip_generator *gen = NULL;
    char err[RIP_ERR_LEN];
    (void)rip_sweep_draw_checked(seed, idx, L, &gen, err);
    return gen;
}

/* FNV-1a 64 of the n bytes of v, least significant first, onto h. */
static uint64_t fnv_int(uint64_t h, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void rip_generator_fingerprint(char out[17])
{
    rip_generator_set_fingerprint(all, N_GENERATORS, out);
}

void rip_generator_set_fingerprint(const rip_generator *const *set, size_t n, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        const rip_generator *gen = set[i];
        for (const char *c = gen->name; *c; c++)
            h = fnv_int(h, (unsigned char)*c, 1);
        h = fnv_int(h, 0, 1);
        h = fnv_int(h, (uint64_t)gen->tier, 4);
        h = fnv_int(h, (uint64_t)gen->weight, 4);
        for (uint64_t k = 0; k < RIP_FINGERPRINT_DRAWS; k++) {
            rip_pcg32 g;
            rip_layer L = {0};
            rip_pcg32_seed(&g, 0x52495053494dULL /* "RIPSIM" */, k);
            h = fnv_int(h, (uint64_t)gen->draw(&g, &L), 4);
            const int64_t v[] = {L.cin, L.cout, L.h_in, L.w_in, L.k_h, L.k_w, L.s_h, L.s_w, L.d_h, L.d_w,
                                 L.p_top, L.p_bottom, L.p_left, L.p_right};
            for (size_t j = 0; j < sizeof v / sizeof v[0]; j++)
                h = fnv_int(h, (uint64_t)v[j], 8);
        }
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}
