/*
** tflm_offline.h — TensorFlow Lite Micro's offline memory plan, as a model
** carries it: the metadata entry named exactly "OfflineMemoryAllocation"
** whose buffer holds little-endian int32s
**     [version, n_subgraphs, N, offset_0 .. offset_{N-1}]
** one offset per tensor of every subgraph in order (N is their total),
** -1 for a tensor TFLM plans online.  TFLM itself checks only N (its
** AllocationInfoBuilder::GetOfflinePlannedOffsets, micro_allocation_info.cc
** lines 338-373); it takes the last entry of that name (its loop does not
** stop at the first) and reads the buffer unchecked.  This reader checks
** everything (rip_tflm_offline_read) and the writer makes a model that
** carries a given plan and is otherwise the input file (rip_tflm_offline_write).
*/
#ifndef RIPSIM_TFLM_OFFLINE_H
#define RIPSIM_TFLM_OFFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tflite/tfl_model.h"

#define RIP_TFLM_OFFLINE_NAME "OfflineMemoryAllocation"
#define RIP_TFLM_OFFLINE_VERSION 0   /* what Arm Vela writes; TFLM reads no version */
#define RIP_TFLM_ONLINE (-1)   /* offset of a tensor TFLM plans itself */

typedef struct rip_tflm_offline {
    int32_t version, n_subgraphs;
    size_t n;                 /* offsets: the model's total tensor count */
    int32_t *offset;          /* n offsets (>= 0, or RIP_TFLM_ONLINE) */
} rip_tflm_offline;

/*
** The offline plan m carries (the last entry named RIP_TFLM_OFFLINE_NAME,
** as TFLM takes it).  No such entry: RIP_OK, *present false, *out empty.
** Otherwise RIP_OK, *present true and *out (free with rip_tflm_offline_free);
** RIP_S_DATA with err "LABEL: OfflineMemoryAllocation: WHAT" when the entry
** is malformed: its buffer index out of range, the buffer not a whole number
** of int32s or shorter than its 3-word header, version not
** RIP_TFLM_OFFLINE_VERSION, n_subgraphs not the model's, N not the model's
** tensor count, the buffer not exactly 3 + N words, an offset below -1;
** RIP_S_NOMEM.
*/
rip_status rip_tflm_offline_read(const rip_tfl_model *m, bool *present, rip_tflm_offline *out, char err[RIP_ERR_LEN]);

void rip_tflm_offline_free(rip_tflm_offline *o);

/*
** The bytes of a model equal to m's file except that it carries the n
** offsets (n: m's total tensor count; each >= 0 or RIP_TFLM_ONLINE) as its
** OfflineMemoryAllocation: the buffer of an existing entry is replaced (the
** buffers vector gets a new element at that index; the old buffer's bytes
** stay in the file, unreferenced), else a metadata entry and a buffer are
** appended.  How (no re-serialiser): a prefix P of new bytes, P a multiple
** of 16, is written before m's unchanged file, so every relative offset
** inside the old bytes still holds and every alignment they had relative
** to the file start (16 at most: Buffer.data's force_align) too.  The
** prefix holds the file header (root offset, "TFL3"), a new root Model
** table with every field of the old root (scalars copied, offsets pointing
** forward into the old bytes), a new buffers vector (and metadata vector
** with its new Metadata table and name), the new Buffer table and its data
** vector, 16-aligned.  Refused (RIP_S_DATA): a model whose root has a field
** this schema does not know (it could not be copied), more than one entry
** named OfflineMemoryAllocation, a wrong n or offset.  RIP_OK with *out
** (malloc'd, *out_len bytes); RIP_S_NOMEM.
*/
rip_status rip_tflm_offline_write(const rip_tfl_model *m, const int32_t *offset, size_t n, uint8_t **out,
                                  size_t *out_len, char err[RIP_ERR_LEN]);

#endif
