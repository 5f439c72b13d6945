/*===- fuserc.h - shared pieces of the fuserc driver ----------------*- C -*-===*/
#ifndef FUSERC_H
#define FUSERC_H

#include "fuser-c/Autodiff.h"
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/* Subcommands: argc/argv after the command word; return the exit code. */
int fusercCompile(int argc, char **argv);
int fusercInspect(int argc, char **argv);
int fusercRun(int argc, char **argv);
int fusercTune(int argc, char **argv);

/* The usage of every subcommand (`fuserc --help`; `compile` and `run`
 * print it for their own --help, their options being the shared ones). */
void fusercUsage(FILE *out);

/* Compile options shared by `compile` and `run`. */
typedef struct {
  const char *chip;
  unsigned ptx, indexBits, optLevel;
  bool fastMath, emulation, assumeAligned, allowTf32;
  bool cubin; /* --cubin: each fusion's cubin beside its PTX (nvJitLink) */
  bool explainSchedule; /* --explain-schedule: each segment's decisions, as remarks */
  const char *math;     /* "fast" or "precise" */
  const char *plantBug; /* testing only */
  const char *schedule; /* --schedule KEY[[SEGMENT]]=VALUE,...: forced schedule decisions */
  const char *tuning;   /* --tuning FILE: a tuning file's schedules (docs/tuning.md) */
  const char *vjp;      /* fuserDifferentiate this fusion first, or NULL */
  int64_t wrt[64];      /* --wrt: positions of the inputs to differentiate */
  int numWrt;
  bool residuals;       /* --residuals: F_fwd and F_bwd instead of F_vjp */
  unsigned given;       /* the valued options seen, one bit each: given twice is an error */
} FusercCompileFlags;

void fusercDefaultFlags(FusercCompileFlags *flags);
/* If argv[*i] is a compile option, consumes it (and its value) and returns
 * 1; returns 0 if it is not one; -1 after reporting a bad value. */
int fusercParseCompileFlag(int argc, char **argv, int *i, FusercCompileFlags *flags);

/* The C API's options for `flags`; reads the --tuning file into *tuning
 * (the caller frees it after compiling). Null after reporting an error. */
FuserCompileOptions fusercCreateOptions(const FusercCompileFlags *flags, bool keepStages,
                                        char **tuning);

/* Compiles `module` with `flags`; on error prints diagnostics and returns
 * a null result. The caller destroys the result. */
FuserCompileResult fusercCompileModule(MlirModule module, const FusercCompileFlags *flags,
                                       bool keepStages);

/* Whether `op` is a fusion (a func.func with a body) named `name` (any
 * name when NULL). */
bool fusercIsFusionNamed(MlirOperation op, const char *name);

/* Drops every fusion of `module` but `name`; other top-level ops (a sharded
 * fusion's shard.grid) stay. False, and nothing dropped, when no fusion has
 * that name. */
bool fusercKeepOnlyFusion(MlirModule module, const char *name);

/* Parses and compiles `path`; on error prints diagnostics and returns a
 * null result (ptr NULL). The caller destroys the result. With `onlyFusion`
 * (run and inspect's --fusion) and a fusion of that name in the file (after
 * --vjp adds its own), the other fusions are dropped before the compile:
 * running one fusion of a file of twenty compiles one. */
FuserCompileResult fusercCompileFile(const char *path, const FusercCompileFlags *flags,
                                     bool keepStages, const char *onlyFusion);

/* Whole-file I/O; errors are reported. */
char *fusercReadFile(const char *path, size_t *size);
bool fusercWriteFile(const char *path, const void *data, size_t size);
bool fusercEndsWith(const char *s, const char *suffix);
/* False after reporting that a compile option that changes what is
 * compiled (--tuning, --schedule, --vjp) was given with a bundle input,
 * which would ignore it. */
bool fusercNoCompileFlagsForBundle(const char *source, const FusercCompileFlags *flags);

#endif
