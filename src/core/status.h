/*
** status.h — what library code returns when it fails.
**
** Library code (everything outside src/cli/) reports what went wrong as a
** rip_status and, where a person needs to know more, one line of text in a
** caller's buffer.  It never prints to stdout, never exits, and never knows
** about exit codes: only the command line (src/cli/) maps a status to a
** process exit status, in one place (rip_exit_status in cli.h).
*/
#ifndef RIPSIM_STATUS_H
#define RIPSIM_STATUS_H

typedef enum rip_status {
    RIP_OK = 0,
    RIP_S_DATA,        /* bad input data: a SPEC, a CSV row, a graph, a database */
    RIP_S_NOINPUT,     /* an input file is missing or cannot be read */
    RIP_S_CANTCREATE,  /* an output file cannot be created */
    RIP_S_IO,          /* a read or write failed part-way (disk full, EIO) */
    RIP_S_NOMEM,       /* out of memory */
    RIP_S_BUSY,        /* a resource is held by another process (a locked database) */
    RIP_S_UNAVAILABLE, /* a needed external tool is missing */
    RIP_S_INTERRUPTED, /* stopped by a signal; what was done so far is saved */
    RIP_S_FAILED,      /* the work ran and a check it makes failed */
    RIP_S_INTERNAL,    /* a bug: an invariant did not hold */
} rip_status;

/* A short lowercase name of a status ("bad data", "out of memory", ...). */
const char *rip_status_name(rip_status s);

/* Make a message one printable line in place: every control byte (a newline
** in a user's SPEC, in a CSV field, in SQLite's quote of a damaged schema)
** becomes '?'.  Library entry points that quote outside text call it on
** their message before returning a failure. */
void rip_err_one_line(char *msg);

#endif
