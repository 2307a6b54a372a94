/* `ebb validate`: placeholder until it lands. */
#include <stdio.h>

#include "tools/cli.h"

int ebb_cmd_validate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "ebb validate: not built yet\n");
    return 2;
}
