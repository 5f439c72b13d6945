/*===- inspect.c - fuserc inspect (placeholder until the runtime lands) ---===*/
#include "fuserc.h"
#include <stdio.h>
int fusercInspect(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "fuserc: error: inspect is not available in this build yet\n");
  return 1;
}
