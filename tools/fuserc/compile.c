/*===- compile.c - fuserc compile -----------------------------------------===*/

#include "fuserc.h"

#include "mlir-c/BuiltinAttributes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void fusercDefaultFlags(FusercCompileFlags *f) {
  f->chip = "sm_90";
  f->ptx = 0;
  f->indexBits = 0;
  f->optLevel = 3;
  f->fastMath = false;
  f->emulation = true;
  f->assumeAligned = false;
  f->allowTf32 = false;
  f->cubin = false;
  f->explainSchedule = false;
  f->math = "fast";
  f->plantBug = "";
  f->schedule = "";
  f->tuning = NULL;
  f->vjp = NULL;
  f->numWrt = 0;
  f->residuals = false;
  f->given = 0;
}

/* "0,2,5" into f->wrt. */
static int parseWrt(const char *s, FusercCompileFlags *f) {
  const char *p = s;
  f->numWrt = 0;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v > 1000000 || (*end && *end != ',') ||
        f->numWrt == (int)(sizeof(f->wrt) / sizeof(f->wrt[0]))) {
      fprintf(stderr, "fuserc: error: --wrt expects input positions like 0,2 (at most 64), got '%s'\n", s);
      return -1;
    }
    f->wrt[f->numWrt++] = v;
    p = *end ? end + 1 : end;
  }
  if (!f->numWrt) {
    fprintf(stderr, "fuserc: error: --wrt expects input positions like 0,2, got '%s'\n", s);
    return -1;
  }
  return 1;
}

static int parseUnsigned(const char *opt, const char *s, unsigned *out) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (!*s || *end || errno || v > 1000000) {
    fprintf(stderr, "fuserc: error: %s expects a number, got '%s'\n", opt, s);
    return -1;
  }
  *out = (unsigned)v;
  return 1;
}

int fusercParseCompileFlag(int argc, char **argv, int *i, FusercCompileFlags *f) {
  const char *a = argv[*i];
  const char *valued[] = {"--chip", "--ptx", "--index-bits", "--opt-level",
                          "--plant-bug", "--math", "--vjp", "--wrt", "--schedule",
                          "--tuning"};
  for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); ++k) {
    if (strcmp(a, valued[k]))
      continue;
    if (*i + 1 >= argc) {
      fprintf(stderr, "fuserc: error: %s needs a value\n", a);
      return -1;
    }
    const char *v = argv[++*i];
    /* One value each: a second one silently replaced the first (a second
       --tuning dropped the first file). --schedule adds up (below). */
    if (k != 4 && k != 8) {
      if (f->given & (1u << k)) {
        fprintf(stderr, "fuserc: error: %s given twice ('%s')%s\n", a, v,
                k == 9 ? "; to use several tuning files, concatenate them into one "
                         "(docs/tuning.md)"
                       : "");
        return -1;
      }
      f->given |= 1u << k;
    }
    if (k == 0) {
      f->chip = v;
      return 1;
    }
    if (k == 4) { /* testing only: see fuserCompileOptionsSetTestingPlantBug */
      f->plantBug = v;
      return 1;
    }
    if (k == 6) {
      if (!*v) {
        fprintf(stderr, "fuserc: error: --vjp expects the name of a fusion to differentiate\n");
        return -1;
      }
      f->vjp = v;
      return 1;
    }
    if (k == 7)
      return parseWrt(v, f);
    if (k == 8) {
      /* Given again, the decisions add up (a key given twice is the
         schedule parser's error): the last one alone was kept, silently. */
      if (f->schedule && *f->schedule) {
        /* One joined string for the process, held here (a command line
           has one set of compile flags). */
        static char *joined;
        size_t n = strlen(f->schedule) + strlen(v) + 2;
        char *grown = malloc(n);
        if (!grown) {
          fprintf(stderr, "fuserc: error: out of memory\n");
          return -1;
        }
        snprintf(grown, n, "%s,%s", f->schedule, v);
        free(joined);
        joined = grown;
        f->schedule = joined;
        return 1;
      }
      f->schedule = v;
      return 1;
    }
    if (k == 9) {
      f->tuning = v;
      return 1;
    }
    if (k == 5) {
      if (strcmp(v, "fast") && strcmp(v, "precise")) {
        fprintf(stderr, "fuserc: error: --math expects fast or precise, got '%s'\n", v);
        return -1;
      }
      f->math = v;
      return 1;
    }
    unsigned *dst = k == 1 ? &f->ptx : k == 2 ? &f->indexBits : &f->optLevel;
    return parseUnsigned(a, v, dst);
  }
  if (!strcmp(a, "--fast-math")) {
    f->fastMath = true;
    return 1;
  }
  if (!strcmp(a, "--explain-schedule")) {
    f->explainSchedule = true;
    return 1;
  }
  if (!strcmp(a, "--allow-tf32")) {
    f->allowTf32 = true;
    return 1;
  }
  if (!strcmp(a, "--cubin")) {
    f->cubin = true;
    return 1;
  }
  if (!strcmp(a, "--assume-aligned")) {
    f->assumeAligned = true;
    return 1;
  }
  if (!strcmp(a, "--residuals")) {
    f->residuals = true;
    return 1;
  }
  if (!strcmp(a, "--no-emulation")) {
    f->emulation = false;
    return 1;
  }
  return 0;
}

char *fusercReadFile(const char *path, size_t *size) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "%s: error: cannot open: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
    n += got;
    if (n == cap) {
      char *bigger = realloc(buf, 2 * cap + 1);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  int readError = ferror(fp) ? (errno ? errno : EIO) : 0;
  fclose(fp);
  if (!buf || readError) {
    fprintf(stderr, "%s: error: cannot read the file: %s\n", path,
            strerror(buf ? readError : ENOMEM));
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *size = n;
  return buf;
}

bool fusercWriteFile(const char *path, const void *data, size_t size) {
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
    return false;
  }
  /* fclose always releases the stream, even when it fails (a full disk
   * often shows only when the last bytes are flushed there). */
  bool written = fwrite(data, 1, size, fp) == size;
  int err = written ? 0 : errno;
  if (fclose(fp) != 0 && written) {
    written = false;
    err = errno;
  }
  if (!written)
    fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(err));
  return written;
}

bool fusercNoCompileFlagsForBundle(const char *source, const FusercCompileFlags *f) {
  const char *given = f->tuning        ? "--tuning"
                      : f->schedule[0] ? "--schedule"
                      : f->vjp         ? "--vjp"
                                       : NULL;
  if (!given)
    return true;
  fprintf(stderr, "fuserc: error: %s applies when compiling a .mlir input; '%s' is a bundle, "
                  "compiled already\n", given, source);
  return false;
}

bool fusercEndsWith(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static void printDiagnostics(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

FuserCompileOptions fusercCreateOptions(const FusercCompileFlags *f, bool keepStages,
                                        char **tuning) {
  *tuning = NULL;
  size_t tuningSize = 0;
  if (f->tuning && !(*tuning = fusercReadFile(f->tuning, &tuningSize)))
    return (FuserCompileOptions){NULL};
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetChip(o, mlirStringRefCreateFromCString(f->chip));
  fuserCompileOptionsSetPtxVersion(o, f->ptx);
  fuserCompileOptionsSetIndexBits(o, f->indexBits);
  fuserCompileOptionsSetOptLevel(o, f->optLevel);
  fuserCompileOptionsSetMathAccuracy(
      o, strcmp(f->math, "precise") ? FuserMathAccuracyFast : FuserMathAccuracyPrecise);
  fuserCompileOptionsSetFastMath(o, f->fastMath);
  fuserCompileOptionsSetAssumeAligned(o, f->assumeAligned);
  fuserCompileOptionsSetAllowTf32(o, f->allowTf32);
  fuserCompileOptionsSetCubin(o, f->cubin);
  fuserCompileOptionsSetSchedule(o, mlirStringRefCreateFromCString(f->schedule));
  fuserCompileOptionsSetExplainSchedule(o, f->explainSchedule);
  fuserCompileOptionsSetEmulation(o, f->emulation);
  fuserCompileOptionsSetKeepStages(o, keepStages);
  fuserCompileOptionsSetTestingPlantBug(o, mlirStringRefCreateFromCString(f->plantBug));
  if (*tuning)
    fuserCompileOptionsSetTuning(o, mlirStringRefCreate(*tuning, tuningSize),
                                 mlirStringRefCreateFromCString(f->tuning));
  return o;
}

FuserCompileResult fusercCompileModule(MlirModule module, const FusercCompileFlags *f,
                                       bool keepStages) {
  FuserCompileResult none = {NULL};
  char *tuning = NULL;
  FuserCompileOptions o = fusercCreateOptions(f, keepStages, &tuning);
  if (!o.ptr)
    return none;
  FuserCompileResult r = fuserCompile(module, o);
  fuserCompileOptionsDestroy(o);
  free(tuning);
  MlirStringRef diags = fuserCompileResultGetDiagnostics(r);
  fwrite(diags.data, 1, diags.length, stderr);
  if (!fuserCompileResultIsSuccess(r)) {
    fuserCompileResultDestroy(r);
    return none;
  }
  return r;
}

bool fusercIsFusionNamed(MlirOperation op, const char *name) {
  MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
  if (opName.length != 9 || memcmp(opName.data, "func.func", 9) ||
      mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
    return false;
  if (!name)
    return true;
  MlirStringRef sym = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name")));
  return sym.length == strlen(name) && !memcmp(sym.data, name, sym.length);
}

bool fusercKeepOnlyFusion(MlirModule module, const char *name) {
  MlirBlock body = mlirModuleGetBody(module);
  bool found = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    found |= fusercIsFusionNamed(op, name);
  if (!found)
    return false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (fusercIsFusionNamed(op, NULL) && !fusercIsFusionNamed(op, name)) {
      mlirOperationRemoveFromParent(op);
      mlirOperationDestroy(op);
    }
    op = next;
  }
  return true;
}

FuserCompileResult fusercCompileFile(const char *path, const FusercCompileFlags *f,
                                     bool keepStages, const char *onlyFusion) {
  FuserCompileResult none = {NULL};
  MlirContext ctx = fuserContextCreate();
  MlirModule module = fuserParseSourceFile(ctx, mlirStringRefCreateFromCString(path),
                                           printDiagnostics, NULL);
  if (mlirModuleIsNull(module)) {
    mlirContextDestroy(ctx);
    return none;
  }
  if ((f->numWrt || f->residuals) && !f->vjp) {
    fprintf(stderr, "fuserc: error: %s needs --vjp FUSION\n", f->numWrt ? "--wrt" : "--residuals");
    mlirModuleDestroy(module);
    mlirContextDestroy(ctx);
    return none;
  }
  if (f->vjp && !fuserDifferentiate(module, mlirStringRefCreateFromCString(f->vjp), f->wrt,
                                    f->numWrt, NULL, 0, f->residuals, printDiagnostics, NULL)) {
    mlirModuleDestroy(module);
    mlirContextDestroy(ctx);
    return none;
  }
  if (onlyFusion)
    fusercKeepOnlyFusion(module, onlyFusion); /* none of that name: the caller says so */
  FuserCompileResult r = fusercCompileModule(module, f, keepStages);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return r;
}

int fusercCompile(int argc, char **argv) {
  FusercCompileFlags flags;
  fusercDefaultFlags(&flags);
  const char *in = NULL, *out = NULL, *emit = "bundle", *stagesDir = NULL;
  bool time = false, emitGiven = false;
  for (int i = 0; i < argc; ++i) {
    int r = fusercParseCompileFlag(argc, argv, &i, &flags);
    if (r < 0)
      return 1;
    if (r > 0)
      continue;
    const char *a = argv[i];
    if ((!strcmp(a, "-o") || !strcmp(a, "--emit") || !strcmp(a, "--dump-stages")) &&
        i + 1 >= argc) {
      fprintf(stderr, "fuserc: error: %s needs a value\n", a);
      return 1;
    }
    if ((!strcmp(a, "-o") && out) || (!strcmp(a, "--emit") && emitGiven) ||
        (!strcmp(a, "--dump-stages") && stagesDir)) {
      fprintf(stderr, "fuserc: error: %s given twice ('%s')\n", a, argv[i + 1]);
      return 1;
    }
    if (!strcmp(a, "-o"))
      out = argv[++i];
    else if (!strcmp(a, "--emit")) {
      emit = argv[++i];
      emitGiven = true;
    } else if (!strcmp(a, "--dump-stages"))
      stagesDir = argv[++i];
    else if (!strcmp(a, "--time"))
      time = true;
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fusercUsage(stdout);
      return 0;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "fuserc: error: unknown option '%s' for compile\n", a);
      return 1;
    } else if (in) {
      fprintf(stderr, "fuserc: error: more than one input file ('%s', '%s')\n", in, a);
      return 1;
    } else {
      in = a;
    }
  }
  if (!in || !out) {
    fprintf(stderr, "fuserc: error: compile needs an input file and -o OUT\n");
    return 1;
  }
  if (strcmp(emit, "bundle") && strcmp(emit, "ptx") && strcmp(emit, "mlir")) {
    fprintf(stderr, "fuserc: error: --emit expects bundle, ptx or mlir, got '%s'\n", emit);
    return 1;
  }
  bool keep = stagesDir != NULL || !strcmp(emit, "mlir");
  FuserCompileResult r = fusercCompileFile(in, &flags, keep, NULL);
  if (!r.ptr)
    return 1;
  int status = 0;
  if (time && fuserCompileResultIsCacheHit(r))
    fprintf(stderr, "fuserc: time: from the compile cache, nothing compiled\n");
  for (intptr_t i = 0; time && i < fuserCompileResultGetNumTimings(r); ++i) {
    MlirStringRef name = fuserCompileResultGetTimingName(r, i);
    fprintf(stderr, "fuserc: time: %-16.*s %9.3f ms\n", (int)name.length, name.data,
            fuserCompileResultGetTimingMs(r, i));
  }
  if (stagesDir) {
    mkdir(stagesDir, 0777);
    for (intptr_t i = 0; i < fuserCompileResultGetNumStages(r) && !status; ++i) {
      MlirStringRef name = fuserCompileResultGetStageName(r, i);
      MlirStringRef ir = fuserCompileResultGetStageIR(r, i);
      char path[4096];
      snprintf(path, sizeof path, "%s/%02d-%.*s.mlir", stagesDir, (int)i,
               (int)name.length, name.data);
      status = !fusercWriteFile(path, ir.data, ir.length);
    }
  }
  if (!status && !strcmp(emit, "bundle")) {
    MlirStringRef b = fuserCompileResultGetBundle(r);
    status = !fusercWriteFile(out, b.data, b.length);
  } else if (!status && !strcmp(emit, "mlir")) {
    for (intptr_t i = 0; i < fuserCompileResultGetNumStages(r); ++i) {
      MlirStringRef name = fuserCompileResultGetStageName(r, i);
      if (name.length == 7 && !memcmp(name.data, "kernels", 7)) {
        MlirStringRef ir = fuserCompileResultGetStageIR(r, i);
        status = !fusercWriteFile(out, ir.data, ir.length);
      }
    }
  } else if (!status) {
    intptr_t n = fuserCompileResultGetNumFusions(r);
    if (n == 1) {
      MlirStringRef ptx = fuserCompileResultGetFusionPtx(r, 0);
      status = !fusercWriteFile(out, ptx.data, ptx.length);
    } else {
      /* One file per fusion: OUT is a prefix, each file OUT.<fusion>.ptx. */
      for (intptr_t i = 0; i < n && !status; ++i) {
        MlirStringRef name = fuserCompileResultGetFusionName(r, i);
        MlirStringRef ptx = fuserCompileResultGetFusionPtx(r, i);
        char path[4096];
        snprintf(path, sizeof path, "%s.%.*s.ptx", out, (int)name.length, name.data);
        status = !fusercWriteFile(path, ptx.data, ptx.length);
      }
    }
  }
  fuserCompileResultDestroy(r);
  return status;
}
