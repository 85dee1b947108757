/*
** real_models.h — results/real-models.md (`ripsim tables real-models`):
** the real TFLite models on the device beside TensorFlow Lite Micro, from
** two committed files:
**   results/real-models.json  the firmware records of the models
**       (deployment.h's format; `./build.sh firmware` writes it with
**       `ripsim tables deployment`), one per case, plan and target;
**   results/tflm-peer.tsv  TFLM's own figures per case
**       (tests/tflm/measure.sh, from the peer): a '#' provenance header,
**       then the columns case, model, arena_used_bytes, output_bytes,
**       output_crc32, output_values, operators.
** Per case: its operators, TFLM's arena, ripsim's base and RiP arenas and
** scratch and the saving against TFLM, the Pico 1 and Pico 2 links, the
** M0 and M33 instructions per inference under both plans, and whether
** every image that ran computed TFLM's output (the same CRC-32).
*/
#ifndef RIPSIM_REAL_MODELS_H
#define RIPSIM_REAL_MODELS_H

#include <stdio.h>

#include "deployment.h"
#include "layer.h"
#include "status.h"

/*
** The Markdown of the cases of the TFLM file at tflm_path with the records
** of d, to out.  RIP_OK; RIP_S_NOINPUT (the file cannot be read),
** RIP_S_DATA (a malformed file, or a case without a record of each plan),
** with err ("PATH:LINE: ...").  Write errors are the caller's (ferror).
*/
rip_status rip_real_models_write(FILE *out, const rip_deployment *d, const char *tflm_path, char err[RIP_ERR_LEN]);

#endif
