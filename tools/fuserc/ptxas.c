/*===- ptxas.c - what ptxas reports for each kernel -----------------------===*\
|*                                                                            *|
|* fuserc inspect prints it; fuserc tune's cost model takes each kernel's     *|
|* registers and shared memory from it (occupancy) and its spills (bytes).    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L
#include "ptxas.h"

#include "fuserc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fusercFindPtxas(const char *path) {
  if (path)
    return path;
  static char found[4096];
  const char *env = getenv("PATH");
  while (env && *env) {
    size_t n = strcspn(env, ":");
    if (n && n < sizeof found - 8) {
      snprintf(found, sizeof found, "%.*s/ptxas", (int)n, env);
      if (access(found, X_OK) == 0)
        return found;
    }
    env += n + (env[n] == ':');
  }
  return access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : NULL;
}

/* The `.target` of a PTX text ("sm_90"), into `out`. */
static void ptxTarget(const char *ptx, char *out, size_t size) {
  const char *t = strstr(ptx, "\n.target ");
  snprintf(out, size, "sm_90");
  if (!t)
    return;
  t += 9;
  size_t n = strcspn(t, ", \n");
  if (n < size)
    snprintf(out, size, "%.*s", (int)n, t);
}

int fusercPtxasUsage(const char *ptxas, const char *ptx, size_t size, char *target,
                     size_t targetSize, FusercKernelUsage *out, int max, char *errors,
                     size_t errorsSize, bool *failed) {
  errors[0] = 0;
  *failed = true;
  ptxTarget(ptx, target, targetSize);
  char dir[] = "/tmp/fuserc-ptxas-XXXXXX";
  if (!mkdtemp(dir)) {
    snprintf(errors, errorsSize, "cannot make a temporary directory\n");
    return 0;
  }
  char ptxPath[64], cmd[8192];
  snprintf(ptxPath, sizeof ptxPath, "%s/k.ptx", dir);
  if (!fusercWriteFile(ptxPath, ptx, size)) {
    rmdir(dir);
    return 0;
  }
  snprintf(cmd, sizeof cmd, "'%s' --gpu-name %s -v '%s' -o /dev/null 2>&1", ptxas, target,
           ptxPath);
  FILE *p = popen(cmd, "r");
  char line[1024];
  FusercKernelUsage cur;
  memset(&cur, 0, sizeof cur);
  int n = 0;
  while (p && fgets(line, sizeof line, p)) {
    const char *s;
    if ((s = strstr(line, "Compiling entry function '"))) {
      sscanf(s + 26, "%1023[^']", cur.kernel);
    } else if (strstr(line, "bytes stack frame")) {
      sscanf(line, " %lu bytes stack frame, %lu bytes spill stores, %lu bytes spill loads",
             &cur.stack, &cur.spillStores, &cur.spillLoads);
    } else if ((s = strstr(line, "Used "))) {
      sscanf(s, "Used %lu registers", &cur.registers);
      const char *sm = strstr(line, "bytes smem");
      if (sm) {
        const char *b = sm;
        while (b > line && b[-1] == ' ')
          --b;
        while (b > line && b[-1] >= '0' && b[-1] <= '9')
          --b;
        cur.smem = strtoul(b, NULL, 10);
      }
      if (n < max)
        out[n++] = cur;
      memset(&cur, 0, sizeof cur);
    } else if (strstr(line, "error")) {
      size_t used = strlen(errors);
      snprintf(errors + used, errorsSize - used, "%s", line);
    }
  }
  int status = p ? pclose(p) : -1;
  unlink(ptxPath);
  rmdir(dir);
  /* ptxas reports the kernels last to first: reverse them into PTX order. */
  for (int i = 0; i < n / 2; ++i) {
    FusercKernelUsage t = out[i];
    out[i] = out[n - 1 - i];
    out[n - 1 - i] = t;
  }
  *failed = status != 0;
  return n;
}
