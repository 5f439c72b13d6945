/*===- tune.c - fuserc tune -----------------------------------------------===*\
|*                                                                            *|
|* Searches the schedules around the heuristic's for each fusion of the      *|
|* input and writes a tuning file (docs/tuning.md):                          *|
|*  1. compiles the fusion alone with the heuristic's schedule and with      *|
|*     each candidate: one schedule key changed to one of the values its     *|
|*     table entry lists to try (fuser-c/Tuning.h);                          *|
|*  2. drops a candidate whose bundle is byte for byte one seen before (a    *|
|*     key none of the fusion's kernels reads);                              *|
|*  3. runs each remaining one with the same seeded inputs, on the GPU when  *|
|*     there is one (--device), else on the CPU emulator, and checks that    *|
|*     its results are the default's bits: a mismatch is a bug in fuser,    *|
|*     reported, and the exit status is 1;                                   *|
|*  4. ranks them: on the GPU by their time (the median of --runs samples,   *|
|*     each 10 back-to-back runs and one synchronize, after 3 warm-up runs); *|
|*     without one by the cost model below, from the launches the plan makes *|
|*     for the sizes given (a recording runtime), the bytes the kernels      *|
|*     move (the emulator's traffic counter) and what ptxas reports;         *|
|*  5. tries the best value of every key that helped, together;              *|
|*  6. writes an entry for each fusion whose best schedule the model puts    *|
|*     at least 2% ahead of the default's.                                   *|
|*                                                                            *|
|* Without a GPU the ranking is the model's, checked against the H200's     *|
|* timings of schedule variants by `make model-check` (docs/tuning.md says  *|
|* where it ranks well and what it does not see).                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L
#include "fuserc.h"
#include "ptxas.h"
#include "record.h"
#include "run.h"

#include "fuser-c/Emulator.h"
#include "mlir-c/BuiltinAttributes.h"
#include "fuser-c/Tuning.h"
#include "fuser_runtime.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *source, *fusion, *dims, *out, *ptxas;
  uint64_t seed;
  bool noPtxas;
  /* --try: exactly these schedules (and the heuristic's), not the search. */
  char *tries[32]; /* owned: the schedules without spaces */
  int numTries;
  /* --model-only: no emulator run (no bit check; bytes are the tensors'
   * sizes), for sizes too large to emulate. */
  bool modelOnly;
  unsigned bandwidthGBps; /* --bandwidth: instead of the chip table's part */
  const char *device;     /* --device: cuda, cpu or auto (cuda where there is one) */
  unsigned runs;          /* --runs: timed samples a candidate on the GPU */
  FusercCompileFlags compile;
} TuneFlags;

/* One schedule tried, and what the model makes of it. */
typedef struct {
  char schedule[512]; /* the `schedule` option's text; "" for the heuristic's */
  char *bundle;       /* owned */
  size_t bundleSize;
  double seconds;     /* modelled; INFINITY when a kernel cannot launch */
  double measured;    /* on the GPU: the median run's seconds; 0 without one */
  size_t launches;
  uint64_t blocks, bytes; /* of the widest launch; bytes of them all */
  unsigned threads;
  unsigned long registers; /* of the widest launch's kernel; 0: unknown */
  double occupancy;        /* of the widest launch, resident threads / the SM's most */
  bool sameBits;
  bool reordered; /* other last bits from a key that reorders a sum (--try) */
  char mismatch[200]; /* the first result whose bits differ, and by how much */
  size_t order; /* when it was tried: ties keep this order, the heuristic's first */
} Candidate;

static void usage(FILE *out) {
  fputs("usage: fuserc tune IN.mlir [--fusion NAME] [--dims D,D,...] [--random SEED]\n"
        "                 [-o TUNING] [--ptxas PATH | --no-ptxas] [--try SCHEDULE]...\n"
        "                 [--device cuda|cpu|auto] [--runs N] [--model-only]\n"
        "                 [--bandwidth GBPS] [compile options]\n"
        "  For each fusion (or the one --fusion names): compiles the schedules around\n"
        "  the heuristic's, checks that each computes the default's bits (inputs from\n"
        "  SEED, default 1, at the sizes --dims gives) and ranks them: on the GPU\n"
        "  (--device cuda, or auto where there is one) by their time, the median of\n"
        "  --runs samples (default 20) of 10 runs each; on the CPU emulator (--device\n"
        "  cpu, or auto without a GPU) by fuser's cost model (docs/tuning.md). With -o,\n"
        "  writes a tuning file for `fuserc compile --tuning TUNING` and\n"
        "  fuserCompileOptionsSetTuning.\n"
        "  --try: rank exactly these schedules (KEY=VALUE or KEY[SEGMENT]=VALUE,...)\n"
        "         against the heuristic's.\n"
        "  --model-only: no emulator run (sizes too large to emulate): no bit check, and\n"
        "  the bytes are the tensors' sizes. --bandwidth: the part's DRAM GB/s (default:\n"
        "  the chip table's, H100 SXM for sm_90; 4800 for an H200).\n",
        out);
}

static bool parseFlags(int argc, char **argv, TuneFlags *f) {
  memset(f, 0, sizeof *f);
  fusercDefaultFlags(&f->compile);
  f->seed = 1;
  f->device = "auto";
  f->runs = 20;
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
    if (!strcmp(a, "--no-ptxas")) {
      f->noPtxas = true;
    } else if (!strcmp(a, "--model-only")) {
      f->modelOnly = true;
    } else if (!strcmp(a, "--try") || !strcmp(a, "--bandwidth") || !strcmp(a, "--fusion") ||
               !strcmp(a, "--dims") || !strcmp(a, "--ptxas") || !strcmp(a, "-o") ||
               !strcmp(a, "--random") || !strcmp(a, "--device") || !strcmp(a, "--runs")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "fuserc: error: %s needs a value\n", a);
        return false;
      }
      const char *v = argv[++i];
      if (!strcmp(a, "--bandwidth")) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (end == v || *end || !n || n > 1000000) {
          fprintf(stderr, "fuserc: error: --bandwidth expects GB/s, a positive number, got "
                          "'%s'\n", v);
          return false;
        }
        f->bandwidthGBps = (unsigned)n;
        continue;
      }
      if (!strcmp(a, "--device")) {
        if (strcmp(v, "cuda") && strcmp(v, "cpu") && strcmp(v, "auto")) {
          fprintf(stderr, "fuserc: error: --device expects cuda, cpu or auto, got '%s'\n", v);
          return false;
        }
        f->device = v;
        continue;
      }
      if (!strcmp(a, "--runs")) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (end == v || *end || !n || n > 10000) {
          fprintf(stderr, "fuserc: error: --runs expects a number from 1 to 10000, got '%s'\n",
                  v);
          return false;
        }
        f->runs = (unsigned)n;
        continue;
      }
      if (!strcmp(a, "--try")) {
        if (f->numTries == 32) {
          fprintf(stderr, "fuserc: error: at most 32 --try schedules\n");
          return false;
        }
        /* Written into the tuning file as one field: without spaces. */
        char *t = malloc(strlen(v) + 1), *o = t;
        for (const char *c = v; *c; ++c)
          if (*c != ' ' && *c != '\t')
            *o++ = *c;
        *o = 0;
        if (!*t) {
          free(t);
          fprintf(stderr, "fuserc: error: --try expects a schedule, KEY=VALUE[,KEY=VALUE...] "
                          "(the heuristic's is always tried), got an empty one\n");
          return false;
        }
        f->tries[f->numTries++] = t;
        continue;
      }
      if (!strcmp(a, "--random")) {
        char *end;
        errno = 0;
        f->seed = strtoull(v, &end, 10);
        if (end == v || *end || errno || !isdigit((unsigned char)v[0])) {
          fprintf(stderr, "fuserc: error: --random expects a number, got '%s'\n", v);
          return false;
        }
        continue;
      }
      const char **dst = !strcmp(a, "--fusion") ? &f->fusion
                         : !strcmp(a, "--dims") ? &f->dims
                         : !strcmp(a, "-o")     ? &f->out
                                                : &f->ptxas;
      if (*dst) {
        fprintf(stderr, "fuserc: error: %s given twice ('%s')\n", a, v);
        return false;
      }
      *dst = v;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "fuserc: error: unknown option '%s' for tune\n", a);
      return false;
    } else if (f->source) {
      fprintf(stderr, "fuserc: error: tune takes one input, got '%s' and '%s'\n", f->source,
              a);
      return false;
    } else {
      f->source = a;
    }
  }
  if (!f->source) {
    usage(stderr);
    return false;
  }
  /* Options that would decide what tune searches, or that it needs. */
  const char *clash = f->compile.schedule[0]     ? "--schedule"
                      : f->compile.tuning          ? "--tuning"
                      : f->compile.vjp             ? "--vjp"
                      : f->compile.explainSchedule ? "--explain-schedule"
                      : !f->compile.emulation      ? "--no-emulation"
                                                   : NULL;
  if (clash) {
    fprintf(stderr, "fuserc: error: tune does not take %s: it %s\n", clash,
            !strcmp(clash, "--no-emulation") ? "checks every schedule on the CPU emulator"
            : !strcmp(clash, "--vjp")
                ? "tunes the fusions of its input (write the gradient fusion out first)"
                : "chooses the schedules itself (--try names some)");
    return false;
  }
  if (f->modelOnly && !strcmp(f->device, "cuda")) {
    fprintf(stderr, "fuserc: error: --model-only runs nothing: it does not take --device "
                    "cuda\n");
    return false;
  }
  /* Without the emulator, no emulation data is needed. */
  if (f->modelOnly)
    f->compile.emulation = false;
  return true;
}

/*===----------------------------------------------------------------------===*/
/* Compiling one fusion alone                                                 */
/*===----------------------------------------------------------------------===*/

static void printDiagnostics(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static void copyString(MlirStringRef s, void *userData) {
  char *out = userData;
  size_t n = strlen(out);
  snprintf(out + n, 64 - n, "%.*s", (int)s.length, s.data);
}

/* Compiles a copy of `module` whose only fusion is `name` (the rest of the
 * module stays: a sharded fusion's grid), with `schedule`. Returns the
 * result, a success or not; the caller destroys it. */
static FuserCompileResult compileAlone(MlirModule module, const char *name, const TuneFlags *f,
                                       const char *schedule) {
  MlirModule m = mlirModuleFromOperation(mlirOperationClone(mlirModuleGetOperation(module)));
  fusercKeepOnlyFusion(m, name);
  FusercCompileFlags flags = f->compile;
  flags.schedule = schedule;
  char *tuning = NULL;
  FuserCompileOptions o = fusercCreateOptions(&flags, false, &tuning);
  FuserCompileResult r = fuserCompile(m, o);
  fuserCompileOptionsDestroy(o);
  free(tuning);
  mlirModuleDestroy(m);
  return r;
}

/* The first line of a failed compile's diagnostics, for a note. */
static void firstLine(FuserCompileResult r, char *out, size_t size) {
  MlirStringRef d = fuserCompileResultGetDiagnostics(r);
  size_t n = 0;
  while (n < d.length && d.data[n] != '\n')
    ++n;
  snprintf(out, size, "%.*s", (int)n, d.data);
}

/*===----------------------------------------------------------------------===*/
/* Running on the emulator                                                    */
/*===----------------------------------------------------------------------===*/

typedef struct {
  char **results; /* the results' bytes, owned */
  size_t *sizes, numResults;
  fuser_dtype *dtypes;
  char (*names)[64];
  uint64_t traffic; /* bytes the kernels loaded and stored, over every tensor */
} Outputs;

static void freeOutputs(Outputs *o) {
  for (size_t i = 0; i < o->numResults; ++i)
    free(o->results[i]);
  free(o->results);
  free(o->sizes);
  free(o->dtypes);
  free(o->names);
  memset(o, 0, sizeof *o);
}

static double nowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bySeconds(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Back-to-back runs a timed sample takes, and untimed runs before them. */
enum { kRunsPerSample = 10, kWarmUpRuns = 3 };

/* Runs `fusion` at `dims` with inputs from `seed` (results start zeroed);
 * the emulator's traffic when `traffic`; with `samples`, then times it:
 * *median is the median sample's seconds a run. False after reporting. */
static bool runFusion(fuser_rt *rt, const fuser_fusion *fusion, const int64_t *dims, size_t nd,
                      uint64_t seed, bool traffic, unsigned samples, double *median,
                      Outputs *out) {
  size_t na = fuser_fusion_num_args(fusion), nr = fuser_fusion_num_results(fusion);
  const char *name = fuser_fusion_name(fusion);
  uint64_t *alloc = calloc(na + nr, sizeof *alloc);
  out->results = calloc(nr, sizeof *out->results);
  out->sizes = calloc(nr, sizeof *out->sizes);
  out->dtypes = calloc(nr, sizeof *out->dtypes);
  out->names = calloc(nr, sizeof *out->names);
  for (size_t r = 0; r < nr; ++r) {
    out->dtypes[r] = fuser_fusion_result(fusion, r)->dtype;
    snprintf(out->names[r], sizeof out->names[r], "%s", fuser_fusion_result(fusion, r)->name);
  }
  out->numResults = nr;
  out->traffic = 0;
  bool ok = false;
  uint64_t state = seed;
  for (size_t i = 0; i < na + nr; ++i) {
    uint64_t bytes;
    if (fusercReportError(fuser_fusion_tensor_bytes(fusion, i, dims, nd, &bytes), name) ||
        fusercReportError(fuser_mem_alloc(rt, bytes ? bytes : 1, &alloc[i]), "allocating"))
      goto done;
    if (i >= na) {
      out->sizes[i - na] = bytes;
      /* Zeros: a result the kernels leave alone compares equal. */
      void *zeros = calloc(1, bytes + 1);
      fuser_error *e = zeros && bytes ? fuser_mem_copy_h2d(rt, alloc[i], zeros, bytes) : NULL;
      free(zeros);
      if (fusercReportError(e, "copying"))
        goto done;
      continue;
    }
    const fuser_tensor_info *t = fuser_fusion_arg(fusion, i);
    size_t elem = fuser_dtype_size(t->dtype);
    void *host = malloc(bytes + 1);
    if (!host) {
      fprintf(stderr, "fuserc: error: out of memory for argument '%s'\n", t->name);
      goto done;
    }
    /* Integers are zeros: an index tensor's every value is then in range
     * (a fusion that indexes a non-empty dim), where random ones would
     * stop the run. Floats and bools are random. */
    bool integer = t->dtype == FUSER_DTYPE_I8 || t->dtype == FUSER_DTYPE_I32 ||
                   t->dtype == FUSER_DTYPE_I64;
    if (integer)
      memset(host, 0, bytes);
    else
      fusercFillRandom(host, bytes / elem, t->dtype, &state);
    fuser_error *e = bytes ? fuser_mem_copy_h2d(rt, alloc[i], host, bytes) : NULL;
    free(host);
    if (fusercReportError(e, "copying"))
      goto done;
  }
  if (fusercReportError(fuser_run(fusion, alloc, alloc + na, dims, nd, NULL, NULL), name) ||
      fusercReportError(fuser_device_synchronize(rt), name))
    goto done;
  if (samples) {
    double *t = calloc(samples, sizeof *t);
    bool timed = t != NULL;
    for (unsigned w = 0; timed && w < kWarmUpRuns; ++w)
      timed = !fusercReportError(fuser_run(fusion, alloc, alloc + na, dims, nd, NULL, NULL),
                                 name);
    timed = timed && !fusercReportError(fuser_device_synchronize(rt), name);
    for (unsigned k = 0; timed && k < samples; ++k) {
      double start = nowSeconds();
      for (unsigned r = 0; timed && r < kRunsPerSample; ++r)
        timed = !fusercReportError(fuser_run(fusion, alloc, alloc + na, dims, nd, NULL, NULL),
                                   name);
      timed = timed && !fusercReportError(fuser_device_synchronize(rt), name);
      t[k] = (nowSeconds() - start) / kRunsPerSample;
    }
    if (timed) {
      qsort(t, samples, sizeof *t, bySeconds);
      *median = samples % 2 ? t[samples / 2] : (t[samples / 2 - 1] + t[samples / 2]) / 2;
    }
    free(t);
    if (!timed)
      goto done;
  }
  for (size_t i = 0; i < na + nr && traffic; ++i) {
    uint64_t loaded, stored;
    if (fusercReportError(fuserEmulatorGetTraffic(rt, alloc[i], &loaded, &stored), name))
      goto done;
    out->traffic += loaded + stored;
  }
  for (size_t r = 0; r < nr; ++r) {
    out->results[r] = malloc(out->sizes[r] + 1);
    if (!out->results[r]) {
      fprintf(stderr, "fuserc: error: out of memory for the results of '%s'\n", name);
      goto done;
    }
    if (out->sizes[r] &&
        fusercReportError(fuser_mem_copy_d2h(rt, out->results[r], alloc[na + r], out->sizes[r]),
                          "copying results"))
      goto done;
  }
  ok = true;
done:
  for (size_t i = 0; i < na + nr; ++i)
    if (alloc[i])
      fuser_error_destroy(fuser_mem_free(rt, alloc[i]));
  free(alloc);
  return ok;
}

/*===----------------------------------------------------------------------===*/
/* The cost model (docs/tuning.md, "The cost model")                          */
/*===----------------------------------------------------------------------===*/

/* Blocks of `threads` threads using `registers` each (0: unknown, taken as
 * 32) and `smem` bytes of shared memory that one SM holds at once. */
static unsigned residentBlocks(const FuserChipInfo *chip, unsigned threads,
                               unsigned long registers, unsigned long smem) {
  unsigned warps = (threads + 31) / 32;
  if (!warps)
    return 0;
  unsigned long regs = registers ? registers : 32;
  /* Registers are allocated per warp in units of 256. */
  unsigned long perWarp = (regs * 32 + 255) / 256 * 256;
  unsigned long byRegs = chip->registersPerSM / perWarp / warps;
  unsigned long byThreads = chip->maxThreadsPerSM / (warps * 32);
  /* 1 KB of each block's shared memory is the system's. */
  unsigned long bySmem = smem ? chip->sharedMemoryPerSM / (smem + 1024) : ~0ul;
  unsigned long n = chip->maxBlocksPerSM;
  if (byRegs < n)
    n = byRegs;
  if (byThreads < n)
    n = byThreads;
  if (bySmem < n)
    n = bySmem;
  return (unsigned)n;
}

/* DRAM latency, for Little's law: an SM keeps its share of the bandwidth
 * busy when (bandwidth / SMs) x this many bytes are in flight from it. */
static const double kDramLatencySeconds = 600e-9;
/* What a launch costs besides its bytes: the launch itself and its ramp. */
static const double kLaunchSeconds = 2e-6;

/* The bytes one thread of `kernel` can have in flight: its widest global
 * load's bytes times how many loads of that width its PTX has (the unrolled
 * body of its main loop; a narrower tail or misaligned path is not
 * counted). 16 when the kernel has no global load. */
static double loadBytesInFlight(const char *ptx, size_t size, const char *kernel) {
  char entry[300];
  snprintf(entry, sizeof entry, ".entry %s(", kernel);
  const char *p = strstr(ptx, entry), *end = ptx + size;
  if (!p)
    return 16;
  const char *next = strstr(p + 1, ".entry ");
  if (next)
    end = next;
  unsigned widest = 0, count = 0;
  for (const char *l = strstr(p, "ld.global"); l && l < end; l = strstr(l + 1, "ld.global")) {
    size_t n = strcspn(l, " \t");
    char op[64];
    snprintf(op, sizeof op, "%.*s", (int)(n < 63 ? n : 63), l);
    unsigned lanes = strstr(op, ".v8") ? 8 : strstr(op, ".v4") ? 4 : strstr(op, ".v2") ? 2 : 1;
    unsigned bytes = strstr(op, "128") ? 16
                     : strstr(op, "64") ? 8
                     : strstr(op, "32") ? 4
                     : strstr(op, "16") ? 2
                                        : 1;
    unsigned width = lanes * bytes;
    if (width > widest) {
      widest = width;
      count = 0;
    }
    count += width == widest;
  }
  return widest ? (double)widest * count : 16;
}

static void model(Candidate *c, const FuserChipInfo *chip, const Recorder *rec,
                  const FusercKernelUsage *usage, int numUsage, MlirStringRef ptx) {
  double perSMBytesPerSecond = chip->dramGBps * 1e9 / chip->smCount;
  c->seconds = 0;
  c->launches = 0;
  c->blocks = 0;
  c->threads = 0;
  c->registers = 0;
  c->occupancy = 0;
  /* The fusion's bytes go through its first kernel launch (the kernel
   * that streams the tensors); the later ones (an inner-outer kernel's
   * combine, a split reduction's finish) move little beside it and cost
   * their launch and a DRAM round trip. (A fusion of several segments that
   * each stream tensors is modelled as if its first did all the moving.) */
  size_t streaming = rec->numLaunches;
  for (size_t i = 0; i < rec->numLaunches && streaming == rec->numLaunches; ++i)
    if (!rec->launches[i].gemm[0])
      streaming = i;
  double widest = -1;
  for (size_t i = 0; i < rec->numLaunches; ++i) {
    const Recorded *l = &rec->launches[i];
    if (l->gemm[0]) /* a library call: the same for every schedule */
      continue;
    ++c->launches;
    uint64_t blocks = (uint64_t)l->dims.grid[0] * l->dims.grid[1] * l->dims.grid[2];
    unsigned threads = l->dims.block[0] * l->dims.block[1] * l->dims.block[2];
    const FusercKernelUsage *u = NULL;
    for (int k = 0; k < numUsage && !u; ++k)
      if (!strcmp(usage[k].kernel, l->kernel))
        u = &usage[k];
    unsigned long smem = l->dims.shared_mem_bytes + (u ? u->smem : 0);
    unsigned resident = residentBlocks(chip, threads, u ? u->registers : 0, smem);
    if (!resident || threads > 1024) {
      c->seconds = INFINITY;
      return;
    }
    double share = i == streaming ? (double)c->bytes : 0;
    /* Spilled registers go through the caches to memory and back. */
    if (u)
      share += (double)(u->spillStores + u->spillLoads) * blocks * threads;
    /* The grid runs as full waves of `slots` blocks and a last, partial
     * one. A wave moves its bytes at the fraction of the DRAM bandwidth
     * its resident loads keep busy (Little's law), over the SMs it has
     * blocks on. */
    uint64_t slots = (uint64_t)chip->smCount * resident;
    double loadBytes = loadBytesInFlight(ptx.data, ptx.length, l->kernel);
    double bytesPerBlock = blocks ? share / (double)blocks : 0;
    double time = 0, occupancy = 0;
    uint64_t fullWaves = blocks / slots, rest = blocks % slots;
    for (int part = 0; part < 2; ++part) {
      uint64_t waveBlocks = part == 0 ? slots : rest;
      double count = part == 0 ? (double)fullWaves : rest ? 1.0 : 0.0;
      if (!count)
        continue;
      double busySMs = waveBlocks < chip->smCount ? (double)waveBlocks : chip->smCount;
      uint64_t perSM = (waveBlocks + chip->smCount - 1) / chip->smCount;
      double residentThreads = (double)perSM * threads;
      double inFlight = residentThreads * loadBytes / (perSMBytesPerSecond * kDramLatencySeconds);
      double bandwidth = perSMBytesPerSecond * busySMs * (inFlight < 1 ? inFlight : 1);
      /* A wave takes at least one round trip to DRAM. */
      double waveTime = (double)waveBlocks * bytesPerBlock / bandwidth;
      time += count * (waveTime > kDramLatencySeconds ? waveTime : kDramLatencySeconds);
      if (part == 0 || !fullWaves)
        occupancy = residentThreads / chip->maxThreadsPerSM;
    }
    c->seconds += kLaunchSeconds + time;
    if ((double)blocks * threads > widest) {
      widest = (double)blocks * threads;
      c->blocks = blocks;
      c->threads = threads;
      c->registers = u ? u->registers : 0;
      c->occupancy = occupancy;
    }
  }
}

/*===----------------------------------------------------------------------===*/
/* The search                                                                 */
/*===----------------------------------------------------------------------===*/

typedef struct {
  const TuneFlags *flags;
  MlirModule module;
  const char *name;
  FuserChipInfo chip;
  const char *ptxas;
  fuser_rt *emulator;
  fuser_rt *gpu; /* runs and times the candidates where there is one */
  int64_t dims[256];
  size_t nd;
  Outputs reference; /* the default's results */
  Candidate *candidates;
  size_t num, cap;
  size_t compiled, duplicates, rejected;
  bool mismatch; /* a candidate computed other bits, or failed to run: a bug */
  bool failed;   /* the heuristic's schedule failed: an error */
} Search;

/* Whether `schedule` ("KEY[SEG]=VALUE,...") sets a key tune never tries
 * because it reorders a sum (FuserScheduleKeyInfo: no try values), whose
 * results may differ from the heuristic's in their last bits. */
static bool reordersSums(const char *schedule) {
  for (const char *item = schedule; *item;) {
    size_t n = strcspn(item, "[=,");
    for (unsigned k = 0; k < fuserGetNumScheduleKeys(); ++k) {
      FuserScheduleKeyInfo key;
      if (fuserGetScheduleKey(k, &key) && strlen(key.name) == n &&
          !strncmp(key.name, item, n) && key.numTryValues == 0)
        return true;
    }
    item += strcspn(item, ",");
    if (*item == ',')
      ++item;
  }
  return false;
}

/* Compiles, checks and models `schedule`; returns its candidate, or NULL
 * when it gives a bundle seen before, fails to compile, or fails to run. */
static Candidate *evaluate(Search *s, const char *schedule) {
  FuserCompileResult r = compileAlone(s->module, s->name, s->flags, schedule);
  ++s->compiled;
  if (!fuserCompileResultIsSuccess(r)) {
    /* The heuristic's must compile; a candidate may ask for what the
     * fusion cannot take (a tile whose inputs overflow shared memory). */
    if (s->num == 0) {
      MlirStringRef d = fuserCompileResultGetDiagnostics(r);
      fwrite(d.data, 1, d.length, stderr);
      s->failed = true;
    } else {
      char why[512];
      firstLine(r, why, sizeof why);
      printf("  not a candidate: %s: %s\n", schedule, why);
      ++s->rejected;
    }
    fuserCompileResultDestroy(r);
    return NULL;
  }
  MlirStringRef b = fuserCompileResultGetBundle(r);
  /* Schedules named by --try are each reported, the same kernels or not. */
  for (size_t i = 0; i < s->num && !s->flags->numTries; ++i)
    if (s->candidates[i].bundleSize == b.length &&
        !memcmp(s->candidates[i].bundle, b.data, b.length)) {
      ++s->duplicates;
      fuserCompileResultDestroy(r);
      return NULL;
    }
  if (s->num == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 32;
    s->candidates = realloc(s->candidates, s->cap * sizeof *s->candidates);
  }
  Candidate *c = &s->candidates[s->num];
  memset(c, 0, sizeof *c);
  snprintf(c->schedule, sizeof c->schedule, "%s", schedule);
  c->order = s->num;
  c->bundle = malloc(b.length);
  memcpy(c->bundle, b.data, b.length);
  c->bundleSize = b.length;

  /* ptxas's registers and shared memory per kernel. */
  FusercKernelUsage usage[64];
  int numUsage = 0;
  MlirStringRef ptxRef = fuserCompileResultGetFusionPtx(r, 0);
  char *ptxText = malloc(ptxRef.length + 1);
  memcpy(ptxText, ptxRef.data, ptxRef.length);
  ptxText[ptxRef.length] = 0;
  MlirStringRef ptx = mlirStringRefCreate(ptxText, ptxRef.length);
  if (s->ptxas) {
    char target[32], errors[4096];
    bool ptxasFailed;
    numUsage = fusercPtxasUsage(s->ptxas, ptx.data, ptx.length, target, sizeof target, usage,
                                64, errors, sizeof errors, &ptxasFailed);
    if (ptxasFailed) {
      /* fuser wrote PTX that ptxas rejects: a bug, whichever schedule. */
      printf("  FAILED: ptxas rejects the PTX of %s (a bug in fuser):\n%s",
             schedule[0] ? schedule : "the heuristic's schedule", errors);
      s->mismatch = true;
      fuserCompileResultDestroy(r);
      free(c->bundle);
      free(ptxText);
      return NULL;
    }
  }
  fuserCompileResultDestroy(r);

  /* The results, on the GPU (and its time) or the emulator. */
  fuser_bundle *bundle = NULL;
  if (s->flags->modelOnly) {
    c->sameBits = true;
    goto launches;
  }
  fuser_rt *runtime = s->gpu ? s->gpu : s->emulator;
  if (fusercReportError(fuser_bundle_load(runtime, c->bundle, c->bundleSize, &bundle),
                        s->flags->source)) {
    free(c->bundle);
    free(ptxText);
    return NULL;
  }
  const fuser_fusion *f = fuser_bundle_get_fusion(bundle, 0);
  Outputs out = {0};
  bool ran = runFusion(runtime, f, s->dims, s->nd, s->flags->seed, !s->gpu,
                       s->gpu ? s->flags->runs : 0, &c->measured, &out);
  fuser_bundle_destroy(bundle);
  if (!ran) {
    /* The heuristic's failing to run is an error; a candidate failing
     * where the heuristic's ran is a bug. */
    if (s->num)
      printf("  FAILED: %s does not run where the heuristic's does (a bug in fuser)\n",
             schedule);
    s->mismatch |= s->num != 0;
    s->failed |= s->num == 0;
    freeOutputs(&out);
    free(c->bundle);
    free(ptxText);
    return NULL;
  }
  c->bytes = out.traffic;
  if (s->num == 0) {
    s->reference = out;
    c->sameBits = true;
  } else {
    c->sameBits = true;
    for (size_t i = 0; i < out.numResults && c->sameBits; ++i) {
      if (out.sizes[i] == s->reference.sizes[i] &&
          !memcmp(out.results[i], s->reference.results[i], out.sizes[i]))
        continue;
      c->sameBits = false;
      /* How far off, to tell a reordered sum from garbage. */
      fuser_dtype t = s->reference.dtypes[i];
      size_t n = s->reference.sizes[i] / fuser_dtype_size(t);
      double diff = 0, largest = 0;
      for (size_t k = 0; k < n && out.sizes[i] == s->reference.sizes[i]; ++k) {
        double a = fusercElementAsDouble(s->reference.results[i], k, t);
        double b = fusercElementAsDouble(out.results[i], k, t);
        if (fabs(a) > largest)
          largest = fabs(a);
        if (!(fabs(a - b) <= diff)) /* NaN too */
          diff = fabs(a - b);
      }
      snprintf(c->mismatch, sizeof c->mismatch,
               "result '%s': largest difference %.3g, largest |value| %.3g",
               s->reference.names[i], diff, largest);
      /* A key that reorders a sum, named by --try: other last bits are
       * its documented effect, garbage is still a bug. */
      c->reordered = reordersSums(schedule) && diff <= 0x1p-6 * (largest > 0 ? largest : 1);
    }
    freeOutputs(&out);
    if (!c->sameBits && !c->reordered)
      s->mismatch = true;
  }

launches:;
  /* The launches, from the plan on a recording runtime. */
  Recorder *rec = calloc(1, sizeof *rec);
  rec->nextAddress = 1ull << 40;
  fuser_rt *rt = NULL;
  bool ok = !fusercReportError(fusercRecorderRuntimeCreate(rec, &rt), "tune") &&
            !fusercReportError(fuser_bundle_load(rt, c->bundle, c->bundleSize, &bundle),
                               s->flags->source) &&
            fusercRecordLaunches(rt, rec, fuser_bundle_get_fusion(bundle, 0), s->dims, s->nd);
  if (ok && (s->flags->modelOnly || s->gpu)) {
    /* Each tensor read or written once. */
    const fuser_fusion *f = fuser_bundle_get_fusion(bundle, 0);
    for (size_t i = 0; ok && i < fuser_fusion_num_args(f) + fuser_fusion_num_results(f); ++i) {
      uint64_t bytes;
      ok = !fusercReportError(fuser_fusion_tensor_bytes(f, i, s->dims, s->nd, &bytes),
                              s->flags->source);
      c->bytes += bytes;
    }
  }
  if (ok)
    model(c, &s->chip, rec, usage, numUsage, ptx);
  free(ptxText);
  if (rt) {
    fuser_bundle_destroy(bundle);
    fuser_rt_destroy(rt);
  }
  free(rec);
  if (!ok) {
    free(c->bundle);
    return NULL;
  }
  ++s->num;
  return c;
}

/* The ranks of x[0..n) (1 for the smallest; ties share their mean rank). */
static void ranksOf(const double *x, size_t n, double *rank) {
  for (size_t i = 0; i < n; ++i) {
    size_t less = 0, equal = 0;
    for (size_t j = 0; j < n; ++j) {
      less += x[j] < x[i];
      equal += x[j] == x[i];
    }
    rank[i] = (double)less + (double)(equal + 1) / 2;
  }
}

/* Spearman's rho of a and b (NAN when either is constant): as
 * bench/gpu/model_check.py computes it from the GPU runs' tables. */
static double spearman(const double *a, const double *b, size_t n) {
  double *ra = calloc(2 * n + 1, sizeof *ra), *rb = ra + n;
  ranksOf(a, n, ra);
  ranksOf(b, n, rb);
  double ma = 0, mb = 0, cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < n; ++i) {
    ma += ra[i] / (double)n;
    mb += rb[i] / (double)n;
  }
  for (size_t i = 0; i < n; ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  free(ra);
  return va > 0 && vb > 0 ? cov / sqrt(va * vb) : NAN;
}

/* What ranks a candidate: its time on the GPU, else the modelled one. */
static double cost(const Search *s, const Candidate *c) {
  return s->gpu ? c->measured : c->seconds;
}

static int byModelledTime(const void *a, const void *b) {
  const Candidate *x = a, *y = b;
  if (x->seconds != y->seconds)
    return x->seconds < y->seconds ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static int byMeasuredTime(const void *a, const void *b) {
  const Candidate *x = a, *y = b;
  if (x->measured != y->measured)
    return x->measured < y->measured ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Whether the fusion can be tuned here; prints why not. */
static bool tunable(const fuser_fusion *f) {
  fuser_grid_info g;
  if (fuser_fusion_grid(f, &g)) {
    printf("  skipped: a sharded fusion (tune one device's part, written out alone)\n");
    return false;
  }
  for (size_t i = 0; i < fuser_fusion_num_args(f); ++i)
    if (fuser_fusion_arg(f, i)->strides) {
      printf("  skipped: argument '%s' is a view with declared strides, which tune does "
             "not pass yet\n", fuser_fusion_arg(f, i)->name);
      return false;
    }
  return true;
}

/* Tunes one fusion; appends its entry to `entries`. Returns 0; 1 after an
 * error; 2 when a schedule computed other bits than the heuristic's. */
/* The segments of a fusion, from fuserPrintFusionSegments: their
 * schedulers' names. A fusion of more segments than this is tuned a key at
 * a time on all of them at once. */
enum { kMaxSegments = 16 };
typedef struct {
  char names[kMaxSegments][32];
  int num;
} Segments;

static void addSegment(MlirStringRef name, void *userData) {
  Segments *s = userData;
  if (s->num < kMaxSegments)
    snprintf(s->names[s->num], sizeof s->names[0], "%.*s", (int)name.length, name.data);
  ++s->num;
}

static void printSegments(const Segments *s) {
  printf("  %d segments:", s->num);
  for (int g = 0; g < s->num && g < kMaxSegments; ++g)
    printf("%s %d %s", g ? "," : "", g, s->names[g]);
  printf("%s; a key two of them read is tried on each alone (KEY[SEGMENT]=VALUE)\n",
         s->num > kMaxSegments ? ", ..." : "");
}

static bool anyReordered(const Search *s) {
  for (size_t i = 0; i < s->num; ++i)
    if (s->candidates[i].reordered)
      return true;
  return false;
}

static int tuneFusion(const TuneFlags *flags, MlirModule module, MlirOperation fusion,
                      const char *name, fuser_rt *emulator, fuser_rt *gpu, FILE *entries) {
  /* A failure below leaves a comment in the file, not a missing fusion. */
  char hash[64] = "";
  if (!fuserPrintFusionTuningHash(module, mlirStringRefCreateFromCString(name), copyString,
                                  hash)) {
    fprintf(stderr, "fuserc: error: internal error: no tuning hash for fusion '%s'\n", name);
    return 1;
  }
  Search s;
  memset(&s, 0, sizeof s);
  s.flags = flags;
  s.module = module;
  s.name = name;
  s.emulator = emulator;
  s.gpu = gpu;
  s.ptxas = flags->noPtxas ? NULL : fusercFindPtxas(flags->ptxas);
  fuserGetChipInfo(mlirStringRefCreateFromCString(flags->compile.chip), &s.chip);
  if (flags->bandwidthGBps)
    s.chip.dramGBps = flags->bandwidthGBps;
  printf("fusion %s (tuning hash %s; %s: %u SMs, %u GB/s)\n", name, hash, flags->compile.chip,
         s.chip.smCount, s.chip.dramGBps);
  if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(
          fusion, mlirStringRefCreateFromCString("fuser.schedule")))) {
    printf("  skipped: it carries its own fuser.schedule, whose decisions win over a "
           "tuning's key by key (tune the fusion without it)\n");
    return 0;
  }

  /* The heuristic's schedule first: the reference for bits and time. */
  int status = 1;
  FuserCompileResult r = compileAlone(module, name, flags, "");
  if (!fuserCompileResultIsSuccess(r)) {
    MlirStringRef d = fuserCompileResultGetDiagnostics(r);
    fwrite(d.data, 1, d.length, stderr);
    fuserCompileResultDestroy(r);
    goto done;
  }
  fuser_bundle *bundle = NULL;
  MlirStringRef b = fuserCompileResultGetBundle(r);
  /* Its signature, from a recording runtime (no emulation data needed). */
  Recorder *sig = calloc(1, sizeof *sig);
  fuser_rt *sigRt = NULL;
  if (fusercReportError(fusercRecorderRuntimeCreate(sig, &sigRt), "tune") ||
      fusercReportError(fuser_bundle_load(sigRt, b.data, b.length, &bundle), flags->source)) {
    fuser_rt_destroy(sigRt);
    free(sig);
    fuserCompileResultDestroy(r);
    goto done;
  }
  const fuser_fusion *f = fuser_bundle_get_fusion(bundle, 0);
  bool ok = tunable(f);
  /* --dims sizes the fusions that have dynamic dims; a static one ignores it. */
  int nd = ok ? fusercResolveDims(f, fuser_fusion_num_dyn_dims(f) ? flags->dims : NULL, s.dims)
              : 0;
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(sigRt);
  free(sig);
  fuserCompileResultDestroy(r);
  if (!ok)
    return 0;
  if (nd < 0)
    goto done;
  s.nd = (size_t)nd;
  if (!evaluate(&s, ""))
    goto done;
  if (flags->numTries) {
    for (int t = 0; t < flags->numTries; ++t)
      evaluate(&s, flags->tries[t]);
    goto report;
  }

  /* One key at a time: on every segment that reads it, or, where two or
   * more segments do, on each of them alone (KEY[SEGMENT]). */
  Segments segments = {0};
  intptr_t numSegments =
      fuserPrintFusionSegments(module, mlirStringRefCreateFromCString(name), addSegment,
                               &segments);
  if (numSegments > 1)
    printSegments(&segments);
  unsigned numKeys = fuserGetNumScheduleKeys();
  /* What to try: a key, and the segment it is tried on (-1: every one). */
  typedef struct {
    unsigned key;
    int segment;
    size_t best; /* the best candidate ahead of the heuristic's; 0: none */
  } Axis;
  Axis *axes = calloc((size_t)numKeys * (kMaxSegments + 1), sizeof *axes);
  size_t numAxes = 0;
  /* Segments past kMaxSegments (or none known): every key on all at once. */
  int perSegment = numSegments > 1 && numSegments <= kMaxSegments ? (int)numSegments : 0;
  for (unsigned k = 0; k < numKeys; ++k) {
    unsigned readers = 0;
    for (int g = 0; g < perSegment; ++g)
      readers += fuserScheduleKeyAppliesTo(k, mlirStringRefCreateFromCString(segments.names[g]));
    if (readers < 2) {
      axes[numAxes++] = (Axis){k, -1, 0};
      continue;
    }
    for (int g = 0; g < perSegment; ++g)
      if (fuserScheduleKeyAppliesTo(k, mlirStringRefCreateFromCString(segments.names[g])))
        axes[numAxes++] = (Axis){k, g, 0};
  }
  for (size_t a = 0; a < numAxes; ++a) {
    FuserScheduleKeyInfo key;
    fuserGetScheduleKey(axes[a].key, &key);
    for (unsigned v = 0; v < key.numTryValues; ++v) {
      char schedule[128], segment[16] = "";
      if (axes[a].segment >= 0)
        snprintf(segment, sizeof segment, "[%d]", axes[a].segment);
      snprintf(schedule, sizeof schedule, "%s%s=%" PRId64, key.name, segment, key.tryValues[v]);
      Candidate *c = evaluate(&s, schedule);
      if (c && c->sameBits && cost(&s, c) < cost(&s, &s.candidates[0]) &&
          (!axes[a].best || cost(&s, c) < cost(&s, &s.candidates[axes[a].best])))
        axes[a].best = (size_t)(c - s.candidates);
    }
  }
  /* The best of each key (and segment) that helped, together, as long as
   * the schedule's text holds them. */
  char combined[sizeof s.candidates[0].schedule] = "";
  unsigned helped = 0;
  for (size_t a = 0; a < numAxes; ++a)
    if (axes[a].best) {
      const char *one = s.candidates[axes[a].best].schedule;
      size_t n = strlen(combined);
      if (n + 1 + strlen(one) >= sizeof combined)
        break;
      snprintf(combined + n, sizeof combined - n, "%s%s", n ? "," : "", one);
      ++helped;
    }
  free(axes);
  if (helped > 1)
    evaluate(&s, combined);

report:;
  /* The report. */
  double reference = s.candidates[0].seconds, measuredReference = s.candidates[0].measured;
  const char *where = s.gpu ? "the GPU" : "the CPU emulator";
  size_t distinct = s.num;
  if (s.rejected && flags->numTries)
    printf("  %zu --try schedule%s did not compile (its error above: a key or value the "
           "schedule option does not accept, or one the fusion cannot take)\n", s.rejected,
           s.rejected == 1 ? "" : "s");
  else if (s.rejected)
    printf("  %zu schedule%s not a candidate (the fusion cannot take %s: above)\n", s.rejected,
           s.rejected == 1 ? " is" : "s are", s.rejected == 1 ? "it" : "them");
  if (flags->numTries)
    printf("  %zu schedules compiled (the heuristic's and --try's)\n", s.compiled - s.rejected);
  else
    printf("  %zu schedules compiled: %zu distinct (%zu gave a bundle already seen: keys the "
           "fusion's kernels do not read)\n", s.compiled, distinct, s.duplicates);
  if (distinct == 1 && !flags->numTries)
    printf("  no schedule key tune tries reaches this fusion's kernels (threads per row, "
           "splits and outer kernels' blocks order a sum: tune does not try them, "
           "docs/tuning.md)\n");
  if (s.mismatch) {
    printf("  MISMATCH: schedules compute other bits than the heuristic's on %s (a bug in "
           "fuser: the results must not depend on the schedule; please report it with this "
           "input); none of them is chosen:\n", where);
    for (size_t i = 0; i < s.num; ++i)
      if (!s.candidates[i].sameBits)
        printf("    %s: %s\n", s.candidates[i].schedule, s.candidates[i].mismatch);
  } else if (flags->modelOnly)
    printf("  (--model-only: results not checked; bytes are the tensors' sizes)\n");
  else
    printf("  every one%s computes the heuristic's bits on %s (seed %" PRIu64 ")\n",
           anyReordered(&s) ? " but those marked (other last bits)" : "", where, flags->seed);
  for (size_t i = 0; i < s.num; ++i)
    if (s.candidates[i].reordered)
      printf("  other last bits: %s sets a key that reorders a sum (docs/tuning.md: tune "
             "does not try those; never chosen as best): %s\n", s.candidates[i].schedule,
             s.candidates[i].mismatch);
  if (s.gpu)
    printf("  timed on the GPU (%s): the median of %u samples, each %d runs back to back "
           "and a synchronize, after %d warm-up runs; the model beside it (bytes: the "
           "tensors' sizes)\n", fuser_rt_driver_name(s.gpu), flags->runs, kRunsPerSample,
           kWarmUpRuns);
  if (!s.ptxas)
    printf("  (%s: occupancy assumes 32 registers a thread)\n",
           flags->noPtxas ? "--no-ptxas" : "ptxas not found");
  qsort(s.candidates, s.num, sizeof *s.candidates, s.gpu ? byMeasuredTime : byModelledTime);
  printf("  rank  %smodelled     vs default  kernels  widest launch       regs  occupancy  "
         "schedule\n", s.gpu ? "measured     vs default  " : "");
  for (size_t i = 0; i < s.num; ++i) {
    const Candidate *c = &s.candidates[i];
    char launch[64];
    snprintf(launch, sizeof launch, "%" PRIu64 " x %u", c->blocks, c->threads);
    char regs[16];
    snprintf(regs, sizeof regs, c->registers ? "%lu" : "-", c->registers);
    if (s.gpu)
      printf("  %4zu  %9.2f us  %9.2fx  ", i + 1, c->measured * 1e6,
             c->measured > 0 ? measuredReference / c->measured : 0.0);
    else
      printf("  %4zu  ", i + 1);
    printf("%9.2f us  %9.2fx  %7zu  %-18s %5s  %8.0f%%  %s%s\n", c->seconds * 1e6, c->seconds > 0 ? reference / c->seconds : 0.0, c->launches,
           launch, regs, c->occupancy * 100, c->schedule[0] ? c->schedule : "(heuristic's)",
           c->sameBits ? "" : c->reordered ? "  (other last bits: reorders a sum)" : "  MISMATCH");
  }
  if (s.gpu && s.num > 2) {
    /* How well the model ranks what the GPU measured (docs/tuning.md). */
    double *modelled = calloc(2 * s.num + 1, sizeof *modelled), *measured = modelled + s.num;
    size_t n = 0;
    for (size_t i = 0; i < s.num; ++i)
      if (isfinite(s.candidates[i].seconds) && s.candidates[i].measured > 0) {
        modelled[n] = s.candidates[i].seconds;
        measured[n++] = s.candidates[i].measured;
      }
    double rho = n > 2 ? spearman(modelled, measured, n) : NAN;
    if (isnan(rho))
      printf("  model vs measured: no rank agreement to compute (%zu candidates, or one of "
             "them ranks all alike)\n", n);
    else
      printf("  model vs measured: Spearman's rho %.2f over %zu candidates (1: the model ranks "
             "them as the GPU does)\n", rho, n);
    free(modelled);
  }
  const Candidate *best = &s.candidates[0];
  for (size_t i = 0; i < s.num && !best->sameBits; ++i)
    best = &s.candidates[i];
  const char *by = s.gpu ? "timed on the GPU" : "by the cost model";
  double referenceCost = s.gpu ? measuredReference : reference, bestCost = cost(&s, best);
  if (best->schedule[0] && best->sameBits && bestCost < 0.98 * referenceCost) {
    printf("  best: %s, %.2fx the heuristic's %s%s\n", best->schedule,
           referenceCost / bestCost, by,
           s.gpu ? "" : " (docs/tuning.md: where it ranks well)");
    fprintf(entries, "# %s, tuned at dims %s: %.2fx the heuristic's %s\n", name,
            s.nd ? flags->dims : "(static)", referenceCost / bestCost, by);
    fprintf(entries, "%s %s %s\n", hash, flags->compile.chip, best->schedule);
  } else {
    printf("  best: the heuristic's schedule (nothing is 2%% ahead of it %s)\n", by);
    fprintf(entries, "# %s, tuned at dims %s: the heuristic's schedule is best\n", name,
            s.nd ? flags->dims : "(static)");
  }
  status = s.mismatch ? 2 : 0;
done:
  if (status == 1 || s.failed) {
    fprintf(entries, "# %s: not tuned (an error, reported by fuserc tune)\n", name);
    status = 1;
  }
  for (size_t i = 0; i < s.num; ++i)
    free(s.candidates[i].bundle);
  free(s.candidates);
  freeOutputs(&s.reference);
  return status;
}

/* Tunes the fusions of flags->source; returns the exit status. */
static int tuneAll(const TuneFlags *given) {
  const TuneFlags flags = *given;
  /* The report and the errors interleave in order. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!fusercEndsWith(flags.source, ".mlir")) {
    fprintf(stderr, "fuserc: error: tune takes a .mlir input (it compiles each schedule), "
                    "got '%s'\n", flags.source);
    return 1;
  }
  FuserChipInfo chip;
  if (!fuserGetChipInfo(mlirStringRefCreateFromCString(flags.compile.chip), &chip)) {
    fprintf(stderr, "fuserc: error: unknown chip '%s'\n", flags.compile.chip);
    return 1;
  }
  MlirContext ctx = fuserContextCreate();
  MlirModule module = fuserParseSourceFile(ctx, mlirStringRefCreateFromCString(flags.source),
                                           printDiagnostics, NULL);
  if (mlirModuleIsNull(module)) {
    mlirContextDestroy(ctx);
    return 1;
  }
  /* The GPU where there is one (and one is asked for), else the emulator. */
  fuser_rt *gpu = NULL, *emulator = NULL;
  if (strcmp(flags.device, "cpu") && !flags.modelOnly) {
    fuser_rt_options ro;
    fuser_rt_options_init(&ro);
    fuser_error *e = fuser_rt_create(&ro, &gpu);
    if (e && !strcmp(flags.device, "cuda")) {
      fusercReportError(e, "cannot use the GPU");
      mlirModuleDestroy(module);
      mlirContextDestroy(ctx);
      return 1;
    }
    fuser_error_destroy(e); /* auto: the emulator and the model */
  }
  FuserEmulatorOptions eo;
  fuserEmulatorOptionsInit(&eo);
  eo.countTraffic = true;
  int status = 0;
  if (!gpu && fusercReportError(fuserEmulatorRuntimeCreate(&eo, &emulator), "tune")) {
    mlirModuleDestroy(module);
    mlirContextDestroy(ctx);
    return 1;
  }
  /* The entries, written to -o at the end (a failed run writes nothing). */
  char *text = NULL;
  size_t textSize = 0;
  FILE *entries = open_memstream(&text, &textSize);
  fprintf(entries, "# fuser tuning file (docs/tuning.md), written by fuserc tune %s for %s\n",
          flags.source, flags.compile.chip);
  bool found = false, failed = false, mismatch = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!fusercIsFusionNamed(op, NULL))
      continue;
    MlirStringRef name = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name")));
    char *fname = malloc(name.length + 1);
    memcpy(fname, name.data, name.length);
    fname[name.length] = 0;
    if (flags.fusion && strcmp(flags.fusion, fname)) {
      free(fname);
      continue;
    }
    found = true;
    int r = tuneFusion(&flags, module, op, fname, emulator, gpu, entries);
    free(fname);
    failed |= r == 1;
    mismatch |= r == 2;
  }
  fclose(entries);
  if (!found && flags.fusion) {
    fprintf(stderr, "fuserc: error: no fusion named '%s' in %s\n", flags.fusion, flags.source);
    failed = true;
  }
  /* A mismatch or a fusion's error still writes the file, with the
   * entries of the fusions that tuned (no mismatching schedule is in it),
   * and exits with 1. */
  status = failed || mismatch;
  if (found && flags.out && !fusercWriteFile(flags.out, text, textSize))
    status = 1;
  free(text);
  fuser_rt_destroy(emulator);
  fuser_rt_destroy(gpu);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return status;
}

int fusercTune(int argc, char **argv) {
  TuneFlags flags;
  int status = parseFlags(argc, argv, &flags) ? tuneAll(&flags) : 1;
  for (int t = 0; t < flags.numTries; ++t)
    free(flags.tries[t]);
  return status;
}
