/*
** cg_blob.h — the bytes of model.bin as the generators build them: a
** growing buffer of weights, quantization arrays and inputs, each placed
** at an offset aligned for the way the generated code reads it (internal
** to src/codegen/).  int32 and float32 values are stored little-endian,
** the byte order of every target the code is generated for.
*/
#ifndef RIPSIM_CG_BLOB_H
#define RIPSIM_CG_BLOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct rip_cg_blob {
    uint8_t *b;
    size_t len, cap;
} rip_cg_blob;

/* Append n bytes of data (NULL: none, only the alignment) at an offset
** that is a multiple of align, zero-padded; the offset, or -1 when out of
** memory. */
int64_t rip_cg_blob_add(rip_cg_blob *bl, const void *data, size_t n, size_t align);

/* Append n int32 values little-endian, 4-aligned (the Cortex-M0 faults
** on unaligned word loads); the offset or -1. */
int64_t rip_cg_blob_add_i32(rip_cg_blob *bl, const int32_t *v, size_t n);

/* Append n float32 values (host order) little-endian, 4-aligned; the
** offset or -1. */
int64_t rip_cg_blob_add_f32(rip_cg_blob *bl, const float *v, size_t n);

void rip_cg_blob_free(rip_cg_blob *bl);

#endif
