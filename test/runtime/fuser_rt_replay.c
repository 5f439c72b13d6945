/*
 * fuser_rt_replay: load a bundle, run one fusion through the runtime, and
 * compare the driver calls with an expected call log of the fake CUDA
 * driver. Made for golden tests of compiled bundles (docs/runtime.md):
 *
 *   fuser_rt_replay BUNDLE [FUSION] [--dims 5,7,...] [--runs N]
 *                   [--scratch] [--stream HEX] [--driver PATH]
 *                   [--cublaslt PATH] [--expect LOG] [--write-expect LOG]
 *                   [--list]
 *
 * It allocates every argument and result through the runtime (arguments
 * first, in signature order, sized from --dims), fills the arguments with a
 * byte pattern, runs the fusion N times on the stream, synchronizes, reads
 * the results back, frees everything, destroys the bundle and the runtime,
 * and then compares the interesting lines of the fake driver's log (module
 * loads/unloads, function lookups, attributes, launches, allocations,
 * frees; see tl_log_interesting) with --expect, whose lines are filtered
 * the same way ('#' lines are comments). --write-expect writes them.
 *
 * The driver is --driver, else FUSER_CUDA_DRIVER, else libcuda.so.1: with
 * the real driver (and no --expect) this is a smoke test on a GPU. A
 * fusion with a GEMM also needs cuBLASLt: --cublaslt sets
 * FUSER_CUBLASLT_LIBRARY (the fake, libfuser_fake_cublaslt.so, next to a
 * fake driver: its calls join the log, pointers named as the fake driver
 * names them).
 * FUSER_FAKE_LOG is set to a temporary file unless already set.
 *
 * Exit status: 0 success (and logs equal), 1 logs differ, 2 runtime error,
 * 64 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(void) {
  fprintf(stderr,
          "usage: fuser_rt_replay BUNDLE [FUSION] [--dims D0,D1,...] "
          "[--runs N]\n"
          "         [--scratch] [--stream HEX] [--driver PATH] "
          "[--cublaslt PATH]\n"
          "         [--expect LOG] [--write-expect LOG] [--list]\n");
  return 64;
}

static int fail(fuser_error *e, const char *what) {
  fprintf(stderr, "fuser_rt_replay: %s: %s\n", what, fuser_error_message(e));
  fuser_error_destroy(e);
  return 2;
}

static void print_signature(const fuser_fusion *f) {
  printf("%s(", fuser_fusion_name(f));
  size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
  for (size_t i = 0; i < na + nr; i++) {
    const fuser_tensor_info *t = fuser_fusion_tensor(f, i);
    if (i == na) printf(") -> (");
    else if (i) printf(", ");
    printf("%s: %s[", t->name, fuser_dtype_name(t->dtype));
    for (uint32_t d = 0; d < t->rank; d++) {
      if (t->dims[d] < 0) printf("%s?", d ? "," : "");
      else printf("%s%lld", d ? "," : "", (long long)t->dims[d]);
    }
    printf("]");
    for (uint32_t d = 0; t->strides && d < t->rank; d++) {
      if (t->strides[d] < 0) printf("%s?", d ? "," : " strides [");
      else printf("%s%lld", d ? "," : " strides [", (long long)t->strides[d]);
    }
    if (t->strides) printf(t->rank ? "]" : " strides []");
  }
  printf(")  dynamic dims: %zu\n", fuser_fusion_num_dyn_dims(f));
}

/* Reads the interesting, non-comment lines of a file. */
static size_t read_expect(const char *path, char ***out, bool *ok) {
  *out = NULL;
  *ok = false;
  FILE *fp = fopen(path, "r");
  if (!fp) return 0;
  *ok = true;
  char *line = NULL;
  size_t cap = 0, n = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, fp)) >= 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = 0;
    if (line[0] == '#' || !tl_log_interesting(line)) continue;
    *out = realloc(*out, sizeof(char *) * (n + 1));
    (*out)[n++] = strdup(line);
  }
  free(line);
  fclose(fp);
  return n;
}

int main(int argc, char **argv) {
  const char *bundle_path = NULL, *fusion_name = NULL, *dims_arg = NULL;
  const char *driver = NULL, *expect = NULL, *write_expect = NULL;
  const char *cublaslt = NULL;
  long runs = 1;
  bool list = false, use_scratch = false;
  void *stream = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--dims") && i + 1 < argc) dims_arg = argv[++i];
    else if (!strcmp(a, "--runs") && i + 1 < argc) runs = atol(argv[++i]);
    else if (!strcmp(a, "--driver") && i + 1 < argc) driver = argv[++i];
    else if (!strcmp(a, "--cublaslt") && i + 1 < argc) cublaslt = argv[++i];
    else if (!strcmp(a, "--expect") && i + 1 < argc) expect = argv[++i];
    else if (!strcmp(a, "--write-expect") && i + 1 < argc) write_expect = argv[++i];
    else if (!strcmp(a, "--stream") && i + 1 < argc)
      stream = (void *)(uintptr_t)strtoull(argv[++i], NULL, 16);
    else if (!strcmp(a, "--scratch")) use_scratch = true;
    else if (!strcmp(a, "--list")) list = true;
    else if (a[0] == '-') return usage();
    else if (!bundle_path) bundle_path = a;
    else if (!fusion_name) fusion_name = a;
    else return usage();
  }
  if (!bundle_path || runs < 0) return usage();
  if (cublaslt) {
    setenv("FUSER_CUBLASLT_LIBRARY", cublaslt, 1);
    if (driver) setenv("FUSER_FAKE_CUDA", driver, 1);
  }

  char tmp_log[256] = "";
  if ((expect || write_expect) && !getenv("FUSER_FAKE_LOG")) {
    const char *t = getenv("TMPDIR");
    snprintf(tmp_log, sizeof tmp_log, "%s/fuser-replay-XXXXXX",
             t && *t ? t : "/tmp");
    int fd = mkstemp(tmp_log);
    if (fd < 0) {
      perror("mkstemp");
      return 2;
    }
    close(fd);
    setenv("FUSER_FAKE_LOG", tmp_log, 1);
  }
  const char *log = getenv("FUSER_FAKE_LOG");
  if (log && *log) {
    FILE *fp = fopen(log, "w"); /* start empty */
    if (fp) fclose(fp);
    tl_log_setup_path(log);
  }

  int status = 0;
  fuser_rt_options o;
  fuser_rt_options_init(&o);
  o.cuda_driver_path = driver;
  fuser_rt *rt = NULL;
  fuser_error *e = fuser_rt_create(&o, &rt);
  if (e) {
    status = fail(e, "creating the runtime");
    goto out;
  }
  fuser_bundle *b = NULL;
  e = fuser_bundle_load_file(rt, bundle_path, &b);
  if (e) {
    fuser_rt_destroy(rt);
    status = fail(e, "loading the bundle");
    goto out;
  }
  if (list) {
    for (size_t i = 0; i < fuser_bundle_num_fusions(b); i++)
      print_signature(fuser_bundle_get_fusion(b, i));
    fuser_bundle_destroy(b);
    fuser_rt_destroy(rt);
    goto out;
  }
  const fuser_fusion *f = NULL;
  if (fusion_name)
    f = fuser_bundle_find_fusion(b, fusion_name);
  else if (fuser_bundle_num_fusions(b) == 1)
    f = fuser_bundle_get_fusion(b, 0);
  if (!f) {
    fprintf(stderr, "fuser_rt_replay: %s; the bundle has:\n",
            fusion_name ? "no such fusion" : "name a fusion");
    for (size_t i = 0; i < fuser_bundle_num_fusions(b); i++)
      print_signature(fuser_bundle_get_fusion(b, i));
    fuser_bundle_destroy(b);
    fuser_rt_destroy(rt);
    status = 64;
    goto out;
  }

  int64_t dims[64];
  size_t nd = 0;
  for (const char *p = dims_arg; p && *p && nd < 64;) {
    char *end;
    dims[nd++] = strtoll(p, &end, 10);
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
  char name[256];
  snprintf(name, sizeof name, "%s", fuser_fusion_name(f));
  size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
  uint64_t *bufs = calloc(na + nr + 1, sizeof *bufs);
  uint64_t *sizes = calloc(na + nr + 1, sizeof *sizes);
  uint64_t scratch = 0, scratch_bytes = 0;
  /* An argument compiled as a view is passed with its static strides and
   * the dense stride for each dynamic one, in a buffer of its span when
   * that is larger than its dense size. */
  int64_t (*strides)[FUSER_MAX_RANK] = calloc(na + 1, sizeof *strides);
  const int64_t **arg_strides = calloc(na + 1, sizeof *arg_strides);
  for (size_t i = 0; i < na + nr && !e; i++) {
    e = fuser_fusion_tensor_bytes(f, i, dims, nd, &sizes[i]);
    const fuser_tensor_info *t = fuser_fusion_tensor(f, i);
    if (!e && i < na && t->strides && sizes[i]) {
      int64_t size[FUSER_MAX_RANK], dense = 1;
      for (uint32_t d = 0; d < t->rank; d++) {
        size[d] = t->dims[d];
        for (size_t k = 0; size[d] < 0 && k < nd; k++)
          if (fuser_fusion_dyn_dim(f, k)->tensor == i &&
              fuser_fusion_dyn_dim(f, k)->dim == d)
            size[d] = dims[k];
      }
      uint64_t span = 1;
      for (uint32_t d = t->rank; d-- > 0;) {
        strides[i][d] = t->strides[d] >= 0 ? t->strides[d] : dense;
        dense *= size[d]; /* a non-empty tensor: below 2^63 */
        span += (uint64_t)(size[d] - 1) * (uint64_t)strides[i][d];
      }
      span *= fuser_dtype_size(t->dtype); /* fuser_run refuses what wraps */
      if (span > sizes[i]) sizes[i] = span;
      arg_strides[i] = strides[i];
    }
    if (!e) e = fuser_mem_alloc(rt, sizes[i], &bufs[i]);
    if (!e && i < na && sizes[i]) {
      unsigned char *host = malloc(sizes[i]);
      for (uint64_t k = 0; k < sizes[i]; k++) host[k] = (unsigned char)(k % 251);
      e = fuser_mem_copy_h2d(rt, bufs[i], host, sizes[i]);
      free(host);
    }
  }
  if (!e && use_scratch) {
    e = fuser_fusion_scratch_size(f, bufs, bufs + na, dims, nd, &scratch_bytes);
    if (!e && scratch_bytes) e = fuser_mem_alloc(rt, scratch_bytes, &scratch);
  }
  fuser_run_options ro = {.scratch = use_scratch ? scratch : 0,
                         .scratch_size = use_scratch ? scratch_bytes : 0,
                         .arg_strides = arg_strides};
  for (long r = 0; r < runs && !e; r++)
    e = fuser_run(f, bufs, bufs + na, dims, nd, stream, &ro);
  if (!e) e = fuser_device_synchronize(rt);
  for (size_t i = na; i < na + nr && !e; i++) {
    unsigned char *host = malloc(sizes[i] ? sizes[i] : 1);
    e = fuser_mem_copy_d2h(rt, host, bufs[i], sizes[i]);
    free(host);
  }
  if (e) status = fail(e, name);
  for (size_t i = 0; i < na + nr; i++)
    fuser_error_destroy(fuser_mem_free(rt, bufs[i]));
  fuser_error_destroy(fuser_mem_free(rt, scratch));
  free(bufs);
  free(sizes);
  free(strides);
  free(arg_strides);
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  if (status) goto out;

  if (write_expect || expect) {
    char **got;
    size_t n = tl_log_read(&got);
    if (write_expect) {
      FILE *fp = fopen(write_expect, "w");
      if (!fp) {
        perror(write_expect);
        status = 2;
      } else {
        fprintf(fp, "# fuser_rt_replay %s %s%s%s\n", bundle_path, name,
                dims_arg ? " --dims " : "", dims_arg ? dims_arg : "");
        for (size_t i = 0; i < n; i++) fprintf(fp, "%s\n", got[i]);
        fclose(fp);
      }
    }
    if (expect) {
      bool ok;
      char **want;
      size_t m = read_expect(expect, &want, &ok);
      if (!ok) {
        fprintf(stderr, "fuser_rt_replay: cannot read %s\n", expect);
        status = 2;
      } else {
        size_t k = n > m ? n : m;
        bool same = n == m;
        for (size_t i = 0; same && i < n; i++) same = !strcmp(got[i], want[i]);
        if (!same) {
          fprintf(stderr, "fuser_rt_replay: the driver calls differ from %s "
                          "(- expected, + got):\n", expect);
          for (size_t i = 0; i < k; i++) {
            const char *g = i < n ? got[i] : "<none>";
            const char *w = i < m ? want[i] : "<none>";
            if (!strcmp(g, w)) fprintf(stderr, "    %s\n", g);
            else fprintf(stderr, "  - %s\n  + %s\n", w, g);
          }
          status = 1;
        } else {
          printf("fuser_rt_replay: %zu driver calls as expected\n", n);
        }
      }
      tl_lines_free(want, m);
    }
    tl_lines_free(got, n);
  }
out:
  if (tmp_log[0]) unlink(tmp_log);
  return status;
}
