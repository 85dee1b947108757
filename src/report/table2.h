/*
** table2.h — the paper's Tab. 2 (Sec. 3.1, "The two limitations in the
** as-published herringbone formula"), regenerated: the seven restricted
** layers, each cell "ours (paper)" with the paper's numbers typed in as
** data (table2.c), ours from the simulator and the closed forms.
*/
#ifndef RIPSIM_TABLE2_H
#define RIPSIM_TABLE2_H

#include <stdint.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

/* One row of the paper's Tab. 2, as printed (Corollary 1 has no column
** there: the caption says it "reproduces Truth on every row"). */
typedef struct rip_table2_row {
    int limitation;                 /* 1 or 2: the block of the table */
    int64_t cin, cout, k, hw;       /* H = W is the input size; p = 0, s = d = 1 */
    const char *x_star;             /* as printed: "0.5", "12", ... */
    int64_t eq1, truth, err;        /* G&M (Eq. 1), Truth, Err. = G&M - Truth */
} rip_table2_row;

/* The seven rows as the paper prints them; *n receives 7. */
const rip_table2_row *rip_table2_paper(size_t *n);

/*
** Tab. 2 as Markdown to out: per row x*, Truth (herringbone_taps, the fast
** simulator), Eq. 1, Err. and Corollary 1, each "ours (paper)", then the
** cells where ours and the paper's differ.  RIP_OK, or RIP_S_NOMEM /
** RIP_S_INTERNAL (the simulator failed) with err.  Write errors are the
** caller's to find (ferror on out).
*/
rip_status rip_table2_write(FILE *out, char err[RIP_ERR_LEN]);

/* The same for the n rows p given as the paper's (tests: a row whose
** paper cells are changed must be listed as differing).  RIP_S_INTERNAL
** also for a row that is not a layer of the table (C_out > C_in >= 1,
** H >= k). */
rip_status rip_table2_write_rows(FILE *out, const rip_table2_row *p, size_t n, char err[RIP_ERR_LEN]);

#endif
