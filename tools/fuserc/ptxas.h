/*===- ptxas.h - what ptxas reports for each kernel -----------------*- C -*-===*/
#ifndef FUSERC_PTXAS_H
#define FUSERC_PTXAS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char kernel[1024];
  unsigned long registers, smem, stack, spillStores, spillLoads;
} FusercKernelUsage;

/* The ptxas to use: `path` if given, else one on $PATH, else the CUDA
 * toolkit's (/usr/local/cuda/bin); NULL when there is none. */
const char *fusercFindPtxas(const char *path);

/* Runs `ptxas -v` on the PTX text (its `.target`, written into `target`)
 * and fills `out` with up to `max` kernels, in PTX order. Returns the
 * count of kernels it reported; *failed says whether ptxas failed (it may
 * have reported some kernels first); ptxas's error lines are appended to
 * `errors` (`errorsSize` bytes, NUL-terminated). */
int fusercPtxasUsage(const char *ptxas, const char *ptx, size_t size, char *target,
                     size_t targetSize, FusercKernelUsage *out, int max, char *errors,
                     size_t errorsSize, bool *failed);

#endif
