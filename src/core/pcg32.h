/*
** pcg32.h — the PCG32 generator (O'Neill's pcg32_random_r: 64-bit LCG state,
** XSH-RR output), written here so that sweeps are reproducible bit for bit
** on any machine.  Pinned by tests/test_pcg32.c to the official test vector
** (seed 42, sequence 54).
**
** A sweep gives layer i its own stream (sequence = i), so a layer's draws
** never depend on which other layers ran before it, on --jobs, or on
** interruption.
*/
#ifndef RIPSIM_PCG32_H
#define RIPSIM_PCG32_H

#include <stdint.h>

typedef struct { uint64_t state, inc; } rip_pcg32;

/* Seed a generator: initstate and stream selector initseq (any values). */
void rip_pcg32_seed(rip_pcg32 *g, uint64_t initstate, uint64_t initseq);

/* Next uniformly distributed 32-bit value. */
uint32_t rip_pcg32_next(rip_pcg32 *g);

/* Uniform integer in [0, bound) without modulo bias; bound >= 1. */
uint32_t rip_pcg32_below(rip_pcg32 *g, uint32_t bound);

/* Uniform integer in [lo, hi] without modulo bias; lo <= hi, hi - lo < 2^32 - 1. */
int64_t rip_pcg32_range(rip_pcg32 *g, int64_t lo, int64_t hi);

#endif
