/*
** root.h — where the default paths of the commands live.
**
** The defaults of `sweep`/`report` (--db results/sweep.db) and `tables`
** (sweeps/layers, firmware/models, results/NAME.md) name files of the ripsim
** source tree.  They resolve against that tree wherever the command is run
** from, so `ripsim report` works from any folder; a path given on the
** command line is taken as written (relative to the current folder).
*/
#ifndef RIPSIM_CLI_ROOT_H
#define RIPSIM_CLI_ROOT_H

#include <stdbool.h>
#include <stddef.h>

/*
** The path of rel ("results/sweep.db") inside the ripsim tree, in buf (n
** bytes).  The tree is $RIPSIM_ROOT when set, else the source tree this
** binary was built from, else the current folder if it is a ripsim tree.
** Returns buf, or NULL after printing one line on stderr naming cmd, what
** the default was for (what, e.g. "--db") and how to fix it.
*/
const char *rip_root_path(const char *cmd, const char *what, const char *rel, char *buf, size_t n);

#endif
