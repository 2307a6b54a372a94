#include <stdio.h>
int main(void) { puts("ebb"); return 0; }
