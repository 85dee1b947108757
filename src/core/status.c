/*
** status.c — names of the library's failure statuses (see status.h).
*/
#include "status.h"

const char *rip_status_name(rip_status s)
{
    switch (s) {
    case RIP_OK: return "ok";
    case RIP_S_DATA: return "bad data";
    case RIP_S_NOINPUT: return "cannot read input";
    case RIP_S_CANTCREATE: return "cannot create output";
    case RIP_S_IO: return "input/output error";
    case RIP_S_NOMEM: return "out of memory";
    case RIP_S_BUSY: return "busy";
    case RIP_S_UNAVAILABLE: return "tool unavailable";
    case RIP_S_INTERRUPTED: return "interrupted";
    case RIP_S_FAILED: return "check failed";
    case RIP_S_INTERNAL: return "internal error";
    }
    return "unknown status";
}

void rip_err_one_line(char *msg)
{
    for (char *c = msg; c && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
}
