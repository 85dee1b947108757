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

typedef struct rip_generator {
    const char *name;     /* stable id stored in the database, e.g. "thin_axis" */
    const char *title;    /* the paper's wording in Tab. 5 */
    int tier;             /* 1 real-network geometry, 2 small/degenerate, 3 corners */
    int weight;           /* share of the sweep in percent; all weights sum to 100 */
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

/*
** The behavioural fingerprint of the generator set, 16 lower-case hex
** digits into out[17]: FNV-1a 64 over every category in registry order
** (its name, tier and weight) and the first RIP_FINGERPRINT_DRAWS layers it
** draws from a fixed seed (each draw's status and geometry).  A new,
** removed, reordered or reweighted category changes it, and so does a
** change inside a draw() that alters any of those first draws; one that
** shows only in later draws, or draws the same layers, does not.  Stored in
** runs.generator_fingerprint; a resumed or merged sweep must match it.
*/
#define RIP_FINGERPRINT_DRAWS 64
void rip_generator_fingerprint(char out[17]);

/* The fingerprint of the n categories g (rip_generator_fingerprint is
** this over rip_generators()): for tests that alter a copy of one. */
void rip_generator_set_fingerprint(const rip_generator *const *g, size_t n, char out[17]);

/* The message of the calling thread's last failed draw ("" if none). */
const char *rip_generator_error(void);

#endif
