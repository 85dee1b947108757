/* placeholder: `ripsim report` is written in the next commit */
#include <stdio.h>
#include "cli.h"
int rip_cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "ripsim report: not built yet\n");
    return RIP_EX_SOFTWARE;
}
