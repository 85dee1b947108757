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

/*
** Write results/table6.md content to out, reading the layer tables from
** layers_dir.  Returns 0 or an exit status of cli.h with err (a missing or
** malformed table, out of memory).
*/
int rip_table6_write(FILE *out, const char *layers_dir, char err[RIP_ERR_LEN]);

#endif
