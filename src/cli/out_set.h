/*
** out_set.h — every output of one command replaced together, or none
** (issue 19: `claims` used to rename claims.md before its figures, `tables
** fig1` its SVG before the PNG, `codegen` its four files one by one).
**
** A command first stages each of its outputs, before it writes any and
** before its long work: a file (rip_out_set_file) becomes a temporary file
** in the target's own folder, ".NAME.XXXXXX", a folder (rip_out_set_dir)
** a temporary folder beside it.  Staging is the check that every
** destination folder exists and is writable: when one is not, the set is
** abandoned with 73 and nothing is replaced.  The command then writes the
** temporaries, and rip_out_set_commit flushes, syncs and closes them all
** and, only when every one is complete, puts them in place in the order
** they were staged (stage the output that refers to the others last), with
** SIGINT, SIGTERM and SIGHUP held until the last is in place.  From the
** first staging to the commit, those signals remove every temporary and
** end the process as the signal would have.  So a failed or interrupted
** command leaves every target as it was and no temporary; a completed one
** replaces them all.  (A rename can still fail after an earlier one
** succeeded, e.g. a target made read-only meanwhile: that is reported,
** 74, and what was not yet renamed is removed.)
**
** A temporary file gets the mode of the file it replaces, or 0666 less the
** umask for a new file (what open(2) would give); mkstemp's 0600 is never
** kept.  A symbolic link is followed: its target is replaced, the link
** kept.  Standard output (path NULL or "-") and a target that exists and is
** not a regular file (/dev/null, /dev/full, a FIFO) are written in place:
** renaming over a device would replace the node.  Every failure is one
** line on stderr, "ripsim CMD: ...", and an exit status (cli.h).
*/
#ifndef RIPSIM_OUT_SET_H
#define RIPSIM_OUT_SET_H

#include <stdbool.h>
#include <stdio.h>

/* Outputs of one command, at most (claims has four). */
#define RIP_OUT_SET_MAX 8

typedef struct rip_out_item {
    FILE *f;            /* a file's stream (write here); NULL for a folder */
    const char *label;  /* the path as given, or "standard output" */
    char *final;        /* what is replaced (a symlink's target); NULL when written in place */
    char *tmp;          /* the temporary file or folder being filled; NULL when in place */
    bool dir;           /* a folder (rip_out_set_dir) */
    bool drop;          /* dropped: the target is removed at the commit */
} rip_out_item;

typedef struct rip_out_set {
    const char *cmd;    /* subcommand name, for messages */
    size_t n;
    rip_out_item item[RIP_OUT_SET_MAX];
} rip_out_set;

/* An empty set for subcommand cmd. */
void rip_out_set_init(rip_out_set *s, const char *cmd);

/*
** Stage the file path (NULL or "-": standard output).  On 0, *it is the
** item: write to (*it)->f; (*it)->tmp names the temporary file (NULL when
** written in place), for a tool that reads it back.  On 73 (folder
** missing or not writable, path a folder), 71 (out of memory) or 70 (more
** than RIP_OUT_SET_MAX outputs), after the message, the whole set is
** abandoned (every temporary removed).
*/
int rip_out_set_file(rip_out_set *s, const char *path, rip_out_item **it);

/*
** Stage the folder path, replaced whole: a new folder is made beside it,
** (*it)->tmp, for the command to fill; at the commit it takes path's place
** and the old folder, if any, is removed.  The new folder gets the old
** one's mode, or 0777 less the umask.  Its parent must exist.  owned
** (NULL-terminated) names the files the command writes there: an existing
** folder holding anything else (but a stale ".NAME.XXXXXX" temporary of
** one of them) is refused, since replacing it would lose that file.  0, or
** 73 after the message (the set abandoned), also 71 and 70 as above.
*/
int rip_out_set_dir(rip_out_set *s, const char *path, const char *const *owned, rip_out_item **it);

/*
** Give up the output it (one of s's): its temporary is removed now and its
** target at the commit, so what the commit leaves is consistent (fig1's
** PNG when the SVG cannot be converted: a PNG of an older SVG goes).
*/
void rip_out_set_drop(rip_out_set *s, rip_out_item *it);

/*
** Finish: flush, check, sync and close every file; then put every output
** in place, signals held.  0, or 74 after the message ("cannot write
** LABEL: ..."): when a write failed nothing is replaced.  s is released
** either way.
*/
int rip_out_set_commit(rip_out_set *s);

/* Give up: close and remove every temporary; the targets are untouched. */
void rip_out_set_abort(rip_out_set *s);

#endif
