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

#include "closest.h"
#include "imath.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Fill s's total and multiplier from its weights. */
static void set_finish(rip_generator_set *s)
{
    s->total = 0;
    for (size_t i = 0; i < s->n; i++)
        s->total += s->weight[i];
    s->mult = 37;
    while (s->total > 1 && rip_gcd64(s->mult, s->total) != 1)
        s->mult++;
}

void rip_generator_set_default(rip_generator_set *s)
{
    s->n = 0;
    for (size_t i = 0; i < N_GENERATORS && s->n < RIP_GENERATOR_SET_MAX; i++)
        if (all[i]->weight > 0) {
            s->gen[s->n] = all[i];
            s->weight[s->n++] = all[i]->weight;
        }
    set_finish(s);
}

/* The registered name closest to word[0..len) (closest.h), or NULL. */
static const char *closest_name(const char *word, size_t len)
{
    const char *names[N_GENERATORS];
    for (size_t i = 0; i < N_GENERATORS; i++)
        names[i] = all[i]->name;
    return rip_closest(word, len, names, N_GENERATORS);
}

/* Append g at weight w to s: RIP_OK, or RIP_S_DATA when g is in s already
** or s is full. */
static rip_status set_add(rip_generator_set *s, const rip_generator *g, int w, char err[RIP_ERR_LEN])
{
    for (size_t j = 0; j < s->n; j++)
        if (s->gen[j] == g) {
            snprintf(err, RIP_ERR_LEN, "'%s' is named twice (the item 'paper' names the paper's 20)", g->name);
            return RIP_S_DATA;
        }
    if (s->n == RIP_GENERATOR_SET_MAX) {
        snprintf(err, RIP_ERR_LEN, "more than %d categories", RIP_GENERATOR_SET_MAX);
        return RIP_S_DATA;
    }
    s->gen[s->n] = g;
    s->weight[s->n++] = w;
    return RIP_OK;
}

rip_status rip_generator_set_parse(const char *text, rip_generator_set *s, char err[RIP_ERR_LEN])
{
    s->n = 0;
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 5 && strncmp(p, "paper", 5) == 0) { /* the paper's 20, each at its weight */
            rip_generator_set d;
            rip_generator_set_default(&d);
            for (size_t i = 0; i < d.n; i++)
                if (set_add(s, d.gen[i], d.weight[i], err) != RIP_OK)
                    return RIP_S_DATA;
            if (!comma)
                break;
            p = comma + 1;
            continue;
        }
        const char *colon = memchr(p, ':', len);
        size_t name_len = colon ? (size_t)(colon - p) : len;
        char name[64];
        if (name_len == 0 || name_len >= sizeof name) {
            snprintf(err, RIP_ERR_LEN, "'%.*s': expected NAME or NAME:WEIGHT", (int)(len < 100 ? len : 100), p);
            return RIP_S_DATA;
        }
        memcpy(name, p, name_len);
        name[name_len] = '\0';
        const rip_generator *g = rip_generator_by_name(name);
        if (!g) {
            const char *near = closest_name(name, name_len);
            snprintf(err, RIP_ERR_LEN, "no generator category '%s'%s%s%s", name, near ? " (did you mean '" : "",
                     near ? near : "", near ? "'?)" : "");
            return RIP_S_DATA;
        }
        int64_t w = g->weight;
        if (colon) {
            char num[24];
            size_t nl = len - name_len - 1;
            char *end = NULL;
            if (nl == 0 || nl >= sizeof num)
                w = -1;
            else {
                memcpy(num, colon + 1, nl);
                num[nl] = '\0';
                w = strtoll(num, &end, 10);
                if (*end != '\0')
                    w = -1;
            }
            if (w < 1 || w > 1000) {
                snprintf(err, RIP_ERR_LEN, "'%.*s': the weight must be a whole number from 1 to 1000", (int)len, p);
                return RIP_S_DATA;
            }
        } else if (w <= 0) {
            snprintf(err, RIP_ERR_LEN, "'%s' is not one of the paper's categories: give its weight (%s:W)", name,
                     name);
            return RIP_S_DATA;
        }
        if (set_add(s, g, (int)w, err) != RIP_OK)
            return RIP_S_DATA;
        if (!comma)
            break;
        p = comma + 1;
    }
    set_finish(s);
    return RIP_OK;
}

void rip_generator_set_text(const rip_generator_set *s, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s:%d", i ? "," : "", s->gen[i]->name, s->weight[i]);
        if (w < 0)
            return;
        used += (size_t)w;
    }
}

size_t rip_generator_set_slot(const rip_generator_set *s, int64_t idx)
{
    /* (idx * m) mod W in [0, W) for any idx, without overflow (W, m <= 64,000) */
    int64_t slot = ((idx % s->total) * s->mult) % s->total;
    if (slot < 0)
        slot += s->total;
    int64_t cum = 0;
    for (size_t i = 0; i < s->n; i++) {
        cum += s->weight[i];
        if (slot < cum)
            return i;
    }
    return s->n - 1; /* unreachable: the slots are the weights' sum */
}

rip_status rip_generator_set_draw(const rip_generator_set *s, uint64_t seed, int64_t idx, rip_layer *L,
                                  const rip_generator **gen, size_t *pos, char err[RIP_ERR_LEN])
{
    size_t k = rip_generator_set_slot(s, idx);
    if (pos)
        *pos = k;
    *gen = s->gen[k];
    rip_pcg32 g;
    rip_pcg32_seed(&g, seed, (uint64_t)idx);
    const rip_status st = (*gen)->draw(&g, L);
    if (st != RIP_OK)
        snprintf(err, RIP_ERR_LEN, "generator %s: %.400s", (*gen)->name, rip_generator_error());
    return st;
}

/* The default set, built once (the registry is constant). */
static rip_generator_set the_default;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void build_default(void)
{
    rip_generator_set_default(&the_default);
}

static const rip_generator_set *default_set(void)
{
    pthread_once(&default_once, build_default);
    return &the_default;
}

const rip_generator *rip_generator_for_layer(int64_t idx)
{
    const rip_generator_set *s = default_set();
    return s->gen[rip_generator_set_slot(s, idx)];
}

rip_status rip_sweep_draw_checked(uint64_t seed, int64_t idx, rip_layer *L, const rip_generator **gen,
                                  char err[RIP_ERR_LEN])
{
    return rip_generator_set_draw(default_set(), seed, idx, L, gen, NULL, err);
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
    rip_generator_set_fingerprint(default_set(), out);
}

void rip_generator_set_fingerprint(const rip_generator_set *s, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < s->n; i++) {
        const rip_generator *gen = s->gen[i];
        for (const char *c = gen->name; *c; c++)
            h = fnv_int(h, (unsigned char)*c, 1);
        h = fnv_int(h, 0, 1);
        h = fnv_int(h, (uint64_t)gen->tier, 4);
        h = fnv_int(h, (uint64_t)s->weight[i], 4);
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
