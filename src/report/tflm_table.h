/*
** tflm_table.h — results/tflm.md (`ripsim tables tflm`): what ripsim's
** exact plans save an unchanged TensorFlow Lite Micro, from two files:
**   results/tflm.tsv  tests/tflm/measure-tflm.sh's measurement: '#'
**       provenance lines, then the columns case, lib, model, tflm_arena,
**       tflm_min_arena, greedy_area, noov_area, noov_arena, noov_min_arena,
**       rip_area, rip_lower_bound, rip_arena, rip_min_arena, peak_op,
**       peak_end, peak_live, friendly_area, limits (the script documents
**       each);
**   results/tflm-link.tsv  the real links of TFLM images: '#' lines, a
**       header, then case, lib (reference or cmsis-nn; ref, cmsis and the
**       tflm- names are read as those), board (pico or pico2), ram_rest
**       (the RAM the image takes besides the arena) and flash, bytes; it
**       may lack rows, or be absent: the fit cells then say "no build".
** Per case and library: TFLM's arena on its own plan, on ripsim's plan
** without overlap and with its overlaps, the bytes and share saved, the
** fit on a Pico 1 and a Pico 2; the tensor areas; what limits the saving
** (the plan's peak, and where CMSIS-NN's kernels allow less than the
** reference kernels, with the bytes the smaller gap would save).
*/
#ifndef RIPSIM_TFLM_TABLE_H
#define RIPSIM_TFLM_TABLE_H

#include <stdio.h>

#include "layer.h"
#include "status.h"

/*
** The Markdown of the measurement at tflm_path with the links of
** link_path (NULL: none), to out.  RIP_OK; RIP_S_NOINPUT (a file cannot
** be opened), RIP_S_DATA (a malformed file: "PATH:LINE: WHAT"), RIP_S_IO,
** RIP_S_NOMEM, with err.  Write errors are the caller's (ferror).
*/
rip_status rip_tflm_table_write(FILE *out, const char *tflm_path, const char *link_path, char err[RIP_ERR_LEN]);

#endif
