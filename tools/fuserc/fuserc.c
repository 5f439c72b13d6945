/*===- fuserc.c - the fuser command-line driver ---------------------------===*\
|*                                                                            *|
|* fuserc compile IN.mlir -o OUT [options]   compile fusions to a bundle      *|
|* fuserc inspect IN.mlir|BUNDLE [options]   show kernels, plans, launches    *|
|* fuserc run IN.mlir|BUNDLE [options]       run fusions on a GPU or the CPU  *|
|* fuserc tune IN.mlir [options]             search schedules, write a tuning *|
|*                                                                            *|
|* Built on fuser's C API and runtime, as an embedder would use them.         *|
|* Errors go to stderr as "file:line:col: error: ..." and exit with 1.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fuserc.h"

#include <stdio.h>
#include <string.h>

void fusercUsage(FILE *out) {
  fputs("usage:\n"
        "  fuserc compile IN.mlir -o OUT [--chip sm_80|sm_89|sm_90|sm_100] [--ptx N]\n"
        "                 [--fast-math] [--index-bits 0|32|64] [--opt-level N] [--assume-aligned]\n"
        "                 [--allow-tf32] [--cubin] [--schedule KEY[[SEGMENT]]=VALUE,...] [--explain-schedule]\n"
        "                 [--tuning FILE]\n"
        "                 [--math fast|precise] [--vjp FUSION [--wrt I,J,...] [--residuals]]\n"
        "                 [--emit bundle|ptx|mlir] [--no-emulation] [--dump-stages DIR] [--time]\n"
        "  fuserc inspect IN.mlir|BUNDLE [--fusion NAME] [--dims D,D,...] [--plan]\n"
        "                 [--ptx] [--ptxas PATH | --no-ptxas] [compile options]\n"
        "  fuserc run IN.mlir|BUNDLE [--device cuda|cpu|auto] [--fusion NAME]\n"
        "                 [--input NAME=FILE.npy]... [--view NAME=SIZES:STRIDES]...\n"
        "                 [--random SEED] [--dims D,D,...] [--ranks N]\n"
        "                 [--output-dir DIR] [--quiet] [--traffic] [--reverse-threads]\n"
        "                 [--race-check] [--misalign] [--emulator-cpu host|baseline|CPU]\n"
        "                 [--emulator-opt 0-3]\n"
        "                 [compile options]\n"
        "  fuserc tune IN.mlir [--fusion NAME] [--dims D,D,...] [--random SEED]\n"
        "                 [-o TUNING] [--ptxas PATH | --no-ptxas] [--try SCHEDULE]...\n"
        "                 [--device cuda|cpu|auto] [--runs N] [--model-only]\n"
        "                 [--bandwidth GBPS] [compile options]\n"
        "  fuserc --help | --version\n",
        out);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fusercUsage(stderr);
    return 1;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    fusercUsage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("fuserc (fuser C API version %u)\n", fuserGetCAPIVersion());
    return 0;
  }
  if (!strcmp(cmd, "compile"))
    return fusercCompile(argc - 2, argv + 2);
  if (!strcmp(cmd, "inspect"))
    return fusercInspect(argc - 2, argv + 2);
  if (!strcmp(cmd, "run"))
    return fusercRun(argc - 2, argv + 2);
  if (!strcmp(cmd, "tune"))
    return fusercTune(argc - 2, argv + 2);
  fprintf(stderr, "fuserc: error: unknown command '%s'\n", cmd);
  fusercUsage(stderr);
  return 1;
}
