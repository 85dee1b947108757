/*
** table6.h — paper Tab. 6 rebuilt from public layer tables (Sec. 5.3, App. H).
**
** Per family, the n layers (n as in Tab. 6) of largest combined input +
** output footprint are taken from the family's networks in sweeps/layers/,
** compared under dual buffering, generalized herringbone and RiP (row-major,
** column-major and the better of the two), each layer confirmed against the
** simulator, and written as markdown beside the paper's row.
*/
#ifndef RIPSIM_TABLE6_H
#define RIPSIM_TABLE6_H

#include <stdio.h>

#include "layer.h"
#include "layer_csv.h"
#include "progress.h"
#include "status.h"

/*
** Write results/table6.md content to out, reading the layer tables from
** layers_dir; progress (may be NULL) counts the selected layers as they are
** simulated.  Returns RIP_OK, or with err RIP_S_NOINPUT (a table missing),
** RIP_S_DATA (a malformed table or a layer too large to simulate) or
** RIP_S_NOMEM.  Write errors are the caller's to find (ferror on out).
*/
rip_status rip_table6_write(FILE *out, const char *layers_dir, const rip_progress_cb *progress,
                            char err[RIP_ERR_LEN]);

/*
** The layers Tab. 6 selects (the same selection as rip_table6_write), in
** table order, into *layers (malloc'd, the caller frees) and *n.  Returns
** RIP_OK, or with err RIP_S_NOINPUT, RIP_S_DATA or RIP_S_NOMEM.
*/
rip_status rip_table6_layers(const char *layers_dir, rip_csv_layer **layers, size_t *n, char err[RIP_ERR_LEN]);

#endif
