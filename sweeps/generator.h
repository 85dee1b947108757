/*
** generator.h — a generator category of the sweep (paper Tab. 5).
**
** A category draws layers with one defining property (e.g. "one output axis
** of 1") from a PCG32 stream.  Each lives in its own file under
** sweeps/generators/ and is listed once in sweeps/generators/registry.c;
** adding a category is that file plus that line (README, "Adding a
** generator category").
**
** Contract of draw(): given a stream, fill *L with a layer that
** rip_layer_derive() accepts (derived fields filled) and for which holds()
** is true.  It must be deterministic in the stream alone, terminate for
** every stream (construct the property rather than rejecting blindly; a
** bounded rejection loop with a constructive fallback is fine), and stay
** within the documented ranges (input spatial extent <= 128).  It returns
** RIP_OK; RIP_S_INTERNAL when a drawing helper was asked for the impossible
** (a bug in the category, never a property of the stream), with the reason
** in rip_generator_error().  Nothing is printed and the process is never
** touched.
*/
#ifndef RIPSIM_GENERATOR_H
#define RIPSIM_GENERATOR_H

#include "layer.h"
#include "pcg32.h"
#include "status.h"

/* How a category's draws relate C_out to C_in: declared by the category,
** checked by tests/test_generators.c on 1,000 draws. */
typedef enum rip_generator_channels {
    RIP_GEN_CHANNELS_BOTH = 0, /* both C_out > C_in and C_out < C_in, each on > 10% of draws */
    RIP_GEN_CHANNELS_GROW,     /* C_out > C_in on every draw */
    RIP_GEN_CHANNELS_SHRINK,   /* C_out <= C_in on every draw, C_out < C_in on most */
    RIP_GEN_CHANNELS_EQUAL,    /* C_out = C_in on every draw */
} rip_generator_channels;

typedef struct rip_generator {
    const char *name;     /* stable id stored in the database, e.g. "thin_axis" */
    const char *title;    /* the paper's wording in Tab. 5 */
    int tier;             /* 1 real-network geometry, 2 small/degenerate, 3 corners */
    int weight;           /* share of the default sweep in percent (the weights of
                             the paper's 20 sum to 100); 0: a category outside the
                             paper's Tab. 5, swept only when named with a weight in
                             a set (sweep --generators NAME:W,...) */
    rip_generator_channels channels; /* C_out against C_in (default: both ways) */
    const char *ranges;   /* one line documenting the parameter ranges drawn */
    rip_status (*draw)(rip_pcg32 *g, rip_layer *L);  /* RIP_OK or RIP_S_INTERNAL (above) */
    bool (*holds)(const rip_layer *L);  /* the defining property */
} rip_generator;

/* All categories in Tab. 5 order; *count receives their number. */
const rip_generator *const *rip_generators(size_t *count);

/* The category with this name, or NULL. */
const rip_generator *rip_generator_by_name(const char *name);

/*
** Which category draws layer idx of a sweep: the weights are laid out on
** 100 slots and layer idx takes slot (idx * 37) mod 100, so every block of
** 100 consecutive layers has exactly `weight` layers of each category and
** short sweeps still see every category early.
*/
const rip_generator *rip_generator_for_layer(int64_t idx);

/*
** Draw layer idx of the sweep with this seed: the category of
** rip_generator_for_layer(idx), fed by its own stream
** rip_pcg32_seed(seed, idx).  Returns that category; for callers that know
** every category is sound (the tests draw each 1,000 times), a failed draw
** is not reported here: use rip_sweep_draw_checked.
*/
const rip_generator *rip_sweep_draw(uint64_t seed, int64_t idx, rip_layer *L);

/*
** rip_sweep_draw with its status: *gen receives the category (never NULL),
** *L the layer.  Returns RIP_OK, or RIP_S_INTERNAL with err naming the
** category and the helper's reason (a bug in the category; *L is then not
** a valid layer).
*/
rip_status rip_sweep_draw_checked(uint64_t seed, int64_t idx, rip_layer *L, const rip_generator **gen,
                                  char err[RIP_ERR_LEN]);

/* At most this many categories in a set. */
#define RIP_GENERATOR_SET_MAX 64

/*
** The categories a sweep draws from, with their weights: layer idx takes
** slot (idx * m) mod W of the W = sum-of-weights slots, the categories laid
** out in the set's order, where m is 37 if it is prime to W, else the next
** number that is (so every block of W consecutive layers has exactly
** `weight` layers of each category).  The default set is the paper's 20 at
** the paper's weights (W = 100, m = 37: rip_generator_for_layer).
*/
typedef struct rip_generator_set {
    size_t n;
    const rip_generator *gen[RIP_GENERATOR_SET_MAX];
    int weight[RIP_GENERATOR_SET_MAX];
    int64_t total, mult;  /* W and m above */
} rip_generator_set;

/* The default set: every registered category with weight > 0, in registry order. */
void rip_generator_set_default(rip_generator_set *s);

/*
** Parse "NAME[:WEIGHT],..." (sweep --generators) into *s: each NAME a
** registered category at most once, WEIGHT a whole number in 1..1000
** (default: the category's own weight; a category of weight 0 needs one).
** The item "paper" stands for the default set's categories at their
** weights ("paper,NAME:5": the paper's 20 and one more).  RIP_OK, or RIP_S_DATA with
** err naming the item at fault (an unknown name lists the closest one).
*/
rip_status rip_generator_set_parse(const char *text, rip_generator_set *s, char err[RIP_ERR_LEN]);

/* "name:weight,..." of s, the form rip_generator_set_parse reads back and
** the database's runs.generator_set stores; truncated to len. */
void rip_generator_set_text(const rip_generator_set *s, char *buf, size_t len);

/* The position in s of the category that draws layer idx. */
size_t rip_generator_set_slot(const rip_generator_set *s, int64_t idx);

/*
** Draw layer idx of a sweep over set s with this seed: the category at
** rip_generator_set_slot(s, idx) (its position into *pos, may be NULL),
** fed by the stream rip_pcg32_seed(seed, idx).  As rip_sweep_draw_checked.
*/
rip_status rip_generator_set_draw(const rip_generator_set *s, uint64_t seed, int64_t idx, rip_layer *L,
                                  const rip_generator **gen, size_t *pos, char err[RIP_ERR_LEN]);

/*
** The behavioural fingerprint of a generator set, 16 lower-case hex
** digits into out[17]: FNV-1a 64 over every category of the set in its
** order (its name, tier and weight in the set) and the first
** RIP_FINGERPRINT_DRAWS layers it
** draws from a fixed seed (each draw's status and geometry).  A new,
** removed, reordered or reweighted category changes it, and so does a
** change inside a draw() that alters any of those first draws; one that
** shows only in later draws, or draws the same layers, does not.  Stored in
** runs.generator_fingerprint; a resumed or merged sweep must match it.
*/
#define RIP_FINGERPRINT_DRAWS 64
void rip_generator_set_fingerprint(const rip_generator_set *s, char out[17]);

/* The fingerprint of the default set (the paper's 20): a category of
** weight 0 added to the registry does not change it. */
void rip_generator_fingerprint(char out[17]);

/* The message of the calling thread's last failed draw ("" if none). */
const char *rip_generator_error(void);

#endif
