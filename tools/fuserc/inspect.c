/*===- inspect.c - fuserc inspect -----------------------------------------===*\
|*                                                                            *|
|* Shows what a fusion became: its signature, its PTX module and kernels,     *|
|* its plan program, the kernels that launch for given sizes (the plan runs   *|
|* against a recording driver in process: no GPU), and what ptxas reports    *|
|* for each kernel (registers, spills, shared memory) when ptxas is found.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L
#include "fuserc.h"
#include "ptxas.h"
#include "record.h"
#include "run.h"

#include "fuser_runtime.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *source, *fusion, *dims, *ptxas;
  bool plan, ptx, noPtxas;
  FusercCompileFlags compile;
} InspectFlags;

/*===----------------------------------------------------------------------===*/
/* Flags                                                                      */
/*===----------------------------------------------------------------------===*/

static void usage(FILE *out) {
  fputs("usage: fuserc inspect INPUT.mlir|BUNDLE [compile options] [--fusion NAME]\n"
        "                      [--dims D0,D1,...] [--plan] [--show-ptx] [--ptxas PATH | --no-ptxas]\n"
        "  Shows each fusion's signature, PTX module and kernels; with --plan its\n"
        "  plan program; the kernels that launch for the sizes given by --dims\n"
        "  (every dynamic dim of the arguments, or of arguments and results, in\n"
        "  signature order; not needed when the fusion has none); with --show-ptx the\n"
        "  PTX text; and, when ptxas is found (PATH, $PATH or /usr/local/cuda),\n"
        "  registers, spills and shared memory per kernel.\n",
        out);
}

static bool parseFlags(int argc, char **argv, InspectFlags *f) {
  memset(f, 0, sizeof *f);
  fusercDefaultFlags(&f->compile);
  f->compile.emulation = false;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    int c = fusercParseCompileFlag(argc, argv, &i, &f->compile);
    if (c < 0)
      return false;
    if (c > 0)
      continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    }
    if (!strcmp(a, "--plan")) {
      f->plan = true;
    } else if (!strcmp(a, "--show-ptx")) {
      f->ptx = true;
    } else if (!strcmp(a, "--no-ptxas")) {
      f->noPtxas = true;
    } else if (!strcmp(a, "--fusion") || !strcmp(a, "--dims") || !strcmp(a, "--ptxas")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "fuserc: error: %s needs a value\n", a);
        return false;
      }
      const char **dst = !strcmp(a, "--fusion") ? &f->fusion
                         : !strcmp(a, "--dims") ? &f->dims
                                                : &f->ptxas;
      if (*dst) {
        fprintf(stderr, "fuserc: error: %s given twice ('%s')\n", a, argv[i + 1]);
        return false;
      }
      *dst = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "fuserc: error: unknown option '%s' for inspect\n", a);
      return false;
    } else if (f->source) {
      fprintf(stderr, "fuserc: error: inspect takes one input, got '%s' and '%s'\n",
              f->source, a);
      return false;
    } else {
      f->source = a;
    }
  }
  if (!f->source) {
    usage(stderr);
    return false;
  }
  return true;
}

/*===----------------------------------------------------------------------===*/
/* Sections                                                                   */
/*===----------------------------------------------------------------------===*/


/* "[4,?]": dims or strides, -1 as "?". */
static void printList(const int64_t *v, uint32_t rank) {
  printf("[");
  for (uint32_t d = 0; d < rank; ++d) {
    if (v[d] < 0)
      printf("%s?", d ? "," : "");
    else
      printf("%s%" PRId64, d ? "," : "", v[d]);
  }
  printf("]");
}

/* "x: f32[4,?]", and for an argument compiled as a view its strides in
 * elements: "x: f32[4,?] strides [1,?]". */
static void printTensor(const fuser_tensor_info *t) {
  printf("%s: %s", t->name, fuser_dtype_name(t->dtype));
  printList(t->dims, t->rank);
  if (t->strides) {
    printf(" strides ");
    printList(t->strides, t->rank);
  }
}

static void printSignature(const fuser_fusion *f) {
  size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
  printf("fusion %s(", fuser_fusion_name(f));
  for (size_t i = 0; i < na; ++i) {
    printf(i ? ", " : "");
    printTensor(fuser_fusion_arg(f, i));
  }
  printf(") -> (");
  for (size_t i = 0; i < nr; ++i) {
    printf(i ? ", " : "");
    printTensor(fuser_fusion_result(f, i));
  }
  printf(")\n");
}

/* The distinct kernels of the fusion's launch records, in order. */
static size_t distinctKernels(const fuser_fusion *f, const char **out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < fuser_fusion_num_launch_records(f); ++i) {
    const char *k = fuser_fusion_launch_kernel(f, i);
    bool seen = false;
    for (size_t j = 0; j < n && !seen; ++j)
      seen = !strcmp(out[j], k);
    if (!seen && n < max)
      out[n++] = k;
  }
  return n;
}


/* Runs the plan for the given sizes against the recording driver and
 * prints the launches. */
/* A sharded fusion: its grid and which axes split each tensor's dims.
 * Returns whether the fusion is sharded over more than one device. */
static bool printGrid(const fuser_fusion *f) {
  fuser_grid_info g;
  if (!fuser_fusion_grid(f, &g))
    return false;
  printf("  sharded over a grid of ");
  for (uint32_t a = 0; a < g.num_axes; ++a)
    printf("%s%u", a ? " x " : "", g.sizes[a]);
  printf(" = %" PRIu64 " device%s; the signature is one device's part:\n", g.num_devices,
         g.num_devices == 1 ? "" : "s");
  const uint8_t *mask = g.splits;
  for (size_t i = 0; i < fuser_fusion_num_args(f) + fuser_fusion_num_results(f); ++i) {
    const fuser_tensor_info *t = fuser_fusion_tensor(f, i);
    printf("    %-12s", t->name);
    bool any = false;
    for (uint32_t d = 0; d < t->rank; ++d, ++mask) {
      if (!*mask)
        continue;
      printf("%s dim %u split over axes", any ? ";" : "", d);
      for (uint32_t a = 0; a < g.num_axes; ++a)
        if (*mask & (1u << a))
          printf(" %u", a);
      any = true;
    }
    printf("%s\n", any ? "" : " whole on every device");
  }
  return g.num_devices > 1;
}

static bool printLaunches(fuser_rt *rt, Recorder *rec, const fuser_fusion *f,
                          const char *dimsFlag) {
  if (printGrid(f)) {
    /* Its plan runs only with a communicator of every device. */
    printf("  launches: each device runs the plan with a communicator of them all (fuserc "
           "run --ranks N); --plan shows its collectives\n");
    return true;
  }
  size_t na = fuser_fusion_num_args(f);
  size_t nd = fuser_fusion_num_dyn_dims(f);
  size_t argDims = 0;
  for (size_t k = 0; k < nd; ++k)
    argDims += fuser_fusion_dyn_dim(f, k)->tensor < na;
  int64_t dims[256] = {0};
  if (nd > 256) {
    printf("  launches: the fusion has %zu dynamic dims, more than inspect takes\n", nd);
    return true;
  }
  if (nd && !dimsFlag) {
    printf("  launches: the fusion has %zu dynamic dim%s: give them with --dims to see "
           "the kernels that launch\n", argDims, argDims == 1 ? "" : "s");
    return true;
  }
  if (dimsFlag && fusercResolveDims(f, dimsFlag, dims) < 0)
    return false;
  if (!fusercRecordLaunches(rt, rec, f, dims, nd))
    return false;
  printf("  launches");
  if (nd) {
    printf(" for dims ");
    for (size_t k = 0; k < nd; ++k)
      printf("%s%" PRId64, k ? "," : "", dims[k]);
  }
  size_t gemms = 0;
  for (size_t i = 0; i < rec->numLaunches; ++i)
    gemms += rec->launches[i].gemm[0] != 0;
  printf(": %zu kernel%s", rec->numLaunches - gemms, rec->numLaunches - gemms == 1 ? "" : "s");
  if (gemms)
    printf(" and %zu library call%s", gemms, gemms == 1 ? "" : "s");
  printf("\n");
  for (size_t i = 0; i < rec->numLaunches; ++i) {
    const Recorded *l = &rec->launches[i];
    if (l->gemm[0]) {
      printf("    %-24s %s\n", l->kernel, l->gemm);
      continue;
    }
    uint64_t blocks = (uint64_t)l->dims.grid[0] * l->dims.grid[1] * l->dims.grid[2];
    uint64_t threads = (uint64_t)l->dims.block[0] * l->dims.block[1] * l->dims.block[2];
    printf("    %-24s grid %u,%u,%u  block %u,%u,%u  (%" PRIu64 " blocks of %" PRIu64
           " threads)  smem %u\n",
           l->kernel, l->dims.grid[0], l->dims.grid[1], l->dims.grid[2], l->dims.block[0],
           l->dims.block[1], l->dims.block[2], blocks, threads, l->dims.shared_mem_bytes);
  }
  if (rec->dropped)
    printf("    (%zu more not shown)\n", rec->dropped);
  uint64_t inter = rec->intermediateBytes;
  if (inter)
    printf("  intermediates: %" PRIu64 " bytes from the runtime's cache\n", inter);
  return true;
}

/* The ptxas to use, unless --no-ptxas. */
static const char *findPtxas(const InspectFlags *f) {
  return f->noPtxas ? NULL : fusercFindPtxas(f->ptxas);
}

/* Runs ptxas -v on the PTX and prints one line per kernel. */
static void printPtxas(const char *ptxas, const fuser_module_info *m) {
  FusercKernelUsage usage[256];
  char target[32], errors[4096];
  bool failed;
  int n = fusercPtxasUsage(ptxas, m->data, m->size - 1, target, sizeof target, usage, 256,
                           errors, sizeof errors, &failed);
  printf("  ptxas %s:\n", target);
  for (char *line = errors; *line;) {
    size_t len = strcspn(line, "\n");
    printf("    %.*s\n", (int)len, line);
    line += len + (line[len] == '\n');
  }
  for (int i = 0; i < n; ++i)
    printf("    %-24s %3lu registers  %5lu B smem  %lu B stack  %lu B spill stores  "
           "%lu B spill loads\n",
           usage[i].kernel, usage[i].registers, usage[i].smem, usage[i].stack,
           usage[i].spillStores, usage[i].spillLoads);
  if (!n || failed)
    printf("    (ptxas %s)\n", failed ? "failed" : "reported no kernels");
}

/*===----------------------------------------------------------------------===*/
/* The command                                                                */
/*===----------------------------------------------------------------------===*/

int fusercInspect(int argc, char **argv) {
  InspectFlags flags;
  if (!parseFlags(argc, argv, &flags))
    return 1;

  /* The bundle: compiled here from .mlir, or read from a file. */
  FuserCompileResult compiled = {NULL};
  const void *bytes;
  size_t size;
  char *file = NULL;
  if (fusercEndsWith(flags.source, ".mlir")) {
    compiled = fusercCompileFile(flags.source, &flags.compile, false, flags.fusion);
    if (!compiled.ptr)
      return 1;
    MlirStringRef b = fuserCompileResultGetBundle(compiled);
    bytes = b.data;
    size = b.length;
  } else {
    if (!fusercNoCompileFlagsForBundle(flags.source, &flags.compile))
      return 1;
    file = fusercReadFile(flags.source, &size);
    if (!file)
      return 1;
    bytes = file;
  }

  Recorder *rec = calloc(1, sizeof *rec);
  rec->nextAddress = 1ull << 40;
  fuser_rt *rt = NULL;
  fuser_bundle *bundle = NULL;
  int status = 1;
  if (fusercReportError(fusercRecorderRuntimeCreate(rec, &rt), "inspect") ||
      fusercReportError(fuser_bundle_load(rt, bytes, size, &bundle), flags.source))
    goto done;

  size_t nf = fuser_bundle_num_fusions(bundle), nm = fuser_bundle_num_modules(bundle);
  printf("bundle: %zu fusion%s, %zu module%s\n", nf, nf == 1 ? "" : "s", nm,
         nm == 1 ? "" : "s");
  const char *ptxas = findPtxas(&flags);
  bool found = false;
  status = 0;
  for (size_t i = 0; i < nf && !status; ++i) {
    const fuser_fusion *f = fuser_bundle_get_fusion(bundle, i);
    if (flags.fusion && strcmp(flags.fusion, fuser_fusion_name(f)))
      continue;
    found = true;
    printSignature(f);
    fuser_module_info m;
    fuser_bundle_module(bundle, fuser_fusion_ptx_module(f), &m);
    const char *kernels[256];
    size_t nk = distinctKernels(f, kernels, 256);
    printf("  PTX module %s: %.1f KB, %zu kernel%s (", m.name, m.size / 1024.0, nk,
           nk == 1 ? "" : "s");
    for (size_t k = 0; k < nk; ++k)
      printf("%s%s", k ? ", " : "", kernels[k]);
    printf("), %zu launch record%s\n", fuser_fusion_num_launch_records(f),
           fuser_fusion_num_launch_records(f) == 1 ? "" : "s");
    // Its cubins (--cubin): named after it.
    for (size_t c = 0; c < nm; ++c) {
      fuser_module_info cm;
      size_t n = strlen(m.name);
      if (fuser_bundle_module(bundle, c, &cm) && cm.kind == FUSER_MODULE_CUBIN &&
          !strncmp(cm.name, m.name, n) && !strcmp(cm.name + n, ".cubin"))
        printf("  cubin %s: %.1f KB, loaded instead of the PTX on a device of its SM\n",
               cm.name, (cm.size - 1) / 1024.0);
    }
    if (flags.plan) {
      size_t n = fuser_fusion_plan_text(f, NULL, 0);
      char *text = malloc(n + 1);
      fuser_fusion_plan_text(f, text, n + 1);
      printf("  plan:\n%s", text);
      free(text);
    }
    if (!printLaunches(rt, rec, f, flags.dims)) {
      status = 1;
      break;
    }
    if (ptxas)
      printPtxas(ptxas, &m);
    if (flags.ptx)
      printf("%s", m.data);
  }
  if (!status && !ptxas && !flags.noPtxas)
    printf("(ptxas not found: registers and spills not shown)\n");
  if (!found && flags.fusion) {
    fprintf(stderr, "fuserc: error: no fusion named '%s' in %s\n", flags.fusion,
            flags.source);
    status = 1;
  }

done:
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(rt);
  free(rec);
  free(file);
  if (compiled.ptr)
    fuserCompileResultDestroy(compiled);
  return status;
}
