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
