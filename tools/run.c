/* `ebb run`: placeholder until it lands. */
#include <stdio.h>

#include "tools/cli.h"

int ebb_cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "ebb run: not built yet\n");
    return 2;
}
