/* Error objects. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fuser_error {
  fuser_error_code code;
  bool is_static;
  char *message;
};

static char oom_message[] = "out of memory (while reporting an error)";
static fuser_error oom_error = {FUSER_ERROR_OUT_OF_MEMORY, true, oom_message};

fuser_error *fr_error_oom(void) { return &oom_error; }

fuser_error *fr_error_v(fuser_error_code code, const char *format,
                        va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, format, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  fuser_error *e = malloc(sizeof *e);
  char *msg = malloc((size_t)n + 1);
  if (!e || !msg) {
    free(e);
    free(msg);
    return &oom_error;
  }
  vsnprintf(msg, (size_t)n + 1, format, ap);
  e->code = code;
  e->is_static = false;
  e->message = msg;
  return e;
}

fuser_error *fuser_error_create(fuser_error_code code, const char *format,
                                ...) {
  /* A driver's bug must not become a crash in the runtime. */
  if (!format) return fuser_error_create(code, "%s", "(no message)");
  va_list ap;
  va_start(ap, format);
  fuser_error *e = fr_error_v(code, format, ap);
  va_end(ap);
  return e;
}

fuser_error *fr_error_wrap(fuser_error *e, const char *format, ...) {
  char prefix[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(prefix, sizeof prefix, format, ap);
  va_end(ap);
  fuser_error *w = fuser_error_create(fuser_error_code_of(e), "%s: %s", prefix,
                                      fuser_error_message(e));
  fuser_error_destroy(e);
  return w;
}

const char *fuser_error_message(const fuser_error *error) {
  return error ? error->message : "";
}

fuser_error_code fuser_error_code_of(const fuser_error *error) {
  return error ? error->code : (fuser_error_code)0;
}

const char *fuser_error_code_name(fuser_error_code code) {
  switch (code) {
  case FUSER_ERROR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
  case FUSER_ERROR_INVALID_BUNDLE: return "INVALID_BUNDLE";
  case FUSER_ERROR_DRIVER_UNAVAILABLE: return "DRIVER_UNAVAILABLE";
  case FUSER_ERROR_DRIVER: return "DRIVER";
  case FUSER_ERROR_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
  case FUSER_ERROR_ASSERTION: return "ASSERTION";
  case FUSER_ERROR_OUT_OF_RANGE: return "OUT_OF_RANGE";
  case FUSER_ERROR_NOT_FOUND: return "NOT_FOUND";
  case FUSER_ERROR_IO: return "IO";
  case FUSER_ERROR_INTERNAL: return "INTERNAL";
  }
  return "UNKNOWN";
}

void fuser_error_destroy(fuser_error *error) {
  if (!error || error->is_static) return;
  free(error->message);
  free(error);
}
