/*
** rk_model.h — the contract between a generated model (`ripsim codegen`)
** and the program that runs it: the host test, the QEMU images and the
** Pico firmware all link one generated model against the same kernels and
** call only what is declared here.
**
** A generated model owns its arena (one static array in .bss, exactly
** the plan's peak bytes, no allocator), its scratch buffer (outside the
** arena, as TinyEngine's), its weights, quantization parameters and input
** (read-only data, in flash on a board).  A CSV graph's weights and input
** are drawn from a fixed seed per model; a TFLite model's are its own and
** the input it was generated with.  Either way the base and rip plans of
** one model compute the same logits.  A TFLite model's float32 outputs
** are arrays beside the arena (its float32 inputs stay in read-only data).
*/
#ifndef RK_MODEL_H
#define RK_MODEL_H

#include <stdint.h>

typedef struct rk_model_info {
    const char *name;        /* the model's Tab. 3 name, e.g. "MCUNet-in0" */
    const char *plan;        /* "base" or "rip" */
    uint32_t arena_bytes;    /* size of the arena array = the plan's peak (or ripsim codegen --arena) */
    uint32_t scratch_bytes;  /* scratch buffer beside the arena */
    uint32_t n_ops;          /* operators executed in graph order (a TFLite model: its net's steps) */
    uint32_t n_logits;       /* bytes of the output tensor (of all outputs, in graph order, when several;
                                float32 outputs little-endian) */
} rk_model_info;

extern const rk_model_info rk_model;

/*
** Copy the (int8) input into the arena at the plan's offset, then run every
** operator (rk_mark_begin, rk_mark_op(i) before operator i, rk_mark_end
** around them).  Returns 0, or 1 + the index of the first operator whose
** kernel refused its parameters (a generator bug; never expected).
*/
int rk_model_run(void);

/* The output logits (n_logits bytes), valid after a run: in the arena, or,
** for a graph with several outputs, gathered after the run into one buffer. */
const int8_t *rk_model_output(void);

/* CRC-32 (IEEE 802.3, as zlib's crc32) of the output logits. */
uint32_t rk_model_checksum(void);

#endif
