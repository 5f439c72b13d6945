/* Runtime objects and the device memory helpers. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void fuser_rt_options_init(fuser_rt_options *options) {
  if (!options) return;
  memset(options, 0, sizeof *options);
}

static fuser_rt *rt_new(void) {
  fuser_rt *rt = calloc(1, sizeof *rt);
  if (!rt) return NULL;
  atomic_init(&rt->refs, 1);
  pthread_mutex_init(&rt->module_lock, NULL);
  pthread_mutex_init(&rt->nccl_lock, NULL);
  fr_alloc_init(&rt->alloc);
  return rt;
}

static bool table_complete(const fuser_driver *d) {
  return d->module_load && d->module_unload && d->function_get && d->launch &&
         d->mem_alloc && d->mem_free && d->copy_h2d && d->copy_d2h &&
         d->synchronize;
}

fuser_error *fuser_rt_create_with_driver(const fuser_driver *driver,
                                         void *driver_ctx, fuser_rt **out_rt) {
  FR_CHECK_ARG(driver, "fuser_rt_create_with_driver", "driver");
  FR_CHECK_ARG(out_rt, "fuser_rt_create_with_driver", "out_rt");
  if (!table_complete(driver))
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_rt_create_with_driver: driver '%s' lacks "
                              "a required function",
                              driver->name ? driver->name : "?");
  if (driver->module_kind != FUSER_MODULE_PTX &&
      driver->module_kind != FUSER_MODULE_EMULATOR)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_rt_create_with_driver: unknown module "
                              "kind %u",
                              driver->module_kind);
  fuser_rt *rt = rt_new();
  if (!rt)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory creating a runtime");
  rt->drv = driver;
  rt->dctx = driver_ctx;
  *out_rt = rt;
  return NULL;
}

fuser_error *fuser_rt_create(const fuser_rt_options *options,
                             fuser_rt **out_rt) {
  FR_CHECK_ARG(out_rt, "fuser_rt_create", "out_rt");
  fuser_rt_options defaults;
  if (!options) {
    fuser_rt_options_init(&defaults);
    options = &defaults;
  }
  fuser_rt *rt = rt_new();
  if (!rt)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory creating a runtime");
  fuser_error *e = fr_cuda_open(options, rt);
  if (e) {
    fr_alloc_destroy(rt);
    pthread_mutex_destroy(&rt->module_lock);
    pthread_mutex_destroy(&rt->nccl_lock);
    free(rt);
    return e;
  }
  rt->drv = &rt->own_table;
  *out_rt = rt;
  return NULL;
}

void fr_rt_retain(fuser_rt *rt) {
  atomic_fetch_add_explicit(&rt->refs, 1, memory_order_relaxed);
}

void fr_rt_release(fuser_rt *rt) {
  if (atomic_fetch_sub_explicit(&rt->refs, 1, memory_order_acq_rel) != 1)
    return;
  fuser_error *e = fr_enter(rt);
  if (!e) {
    fuser_error_destroy(rt->drv->synchronize(rt->dctx, NULL, 1));
    fr_alloc_destroy(rt);
    fr_leave(rt);
  } else {
    /* Can't reach the device: drop the host side of the cache only. */
    fuser_error_destroy(e);
    for (int c = 0; c < FR_NUM_CLASSES; c++)
      while (rt->alloc.classes[c]) {
        fr_block *b = rt->alloc.classes[c];
        rt->alloc.classes[c] = b->next;
        free(b);
      }
    pthread_mutex_destroy(&rt->alloc.lock);
  }
  if (rt->drv->destroy) rt->drv->destroy(rt->dctx);
  /* Every communicator held a reference: none is left to use NCCL. */
  fr_nccl_close(rt->nccl);
  pthread_mutex_destroy(&rt->module_lock);
  pthread_mutex_destroy(&rt->nccl_lock);
  free(rt);
}

void fuser_rt_destroy(fuser_rt *rt) {
  if (rt) fr_rt_release(rt);
}

const char *fuser_rt_driver_name(const fuser_rt *rt) {
  return rt && rt->drv->name ? rt->drv->name : "";
}

void *fuser_rt_driver_context(const fuser_rt *rt) {
  return rt && rt->drv != &rt->own_table ? rt->dctx : NULL;
}

/* ---- memory helpers ------------------------------------------------------ */

#define CHECK_RT(fn) FR_CHECK_ARG(rt, fn, "runtime")

fuser_error *fuser_mem_alloc(fuser_rt *rt, size_t bytes, uint64_t *out_ptr) {
  CHECK_RT("fuser_mem_alloc");
  FR_CHECK_ARG(out_ptr, "fuser_mem_alloc", "out_ptr");
  /* No device has 2^63 bytes; refusing here also keeps drivers that round
   * sizes up from wrapping around to a small block. */
  if (bytes > (size_t)INT64_MAX)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "fuser_mem_alloc: %zu bytes is more than any "
                              "device has", bytes);
  fuser_error *e = fr_enter(rt);
  if (e) return e;
  e = rt->drv->mem_alloc(rt->dctx, bytes, out_ptr);
  fr_leave(rt);
  return e;
}

fuser_error *fuser_mem_free(fuser_rt *rt, uint64_t ptr) {
  CHECK_RT("fuser_mem_free");
  if (!ptr) return NULL;
  fuser_error *e = fr_enter(rt);
  if (e) return e;
  e = rt->drv->mem_free(rt->dctx, ptr);
  fr_leave(rt);
  return e;
}

fuser_error *fuser_mem_copy_h2d(fuser_rt *rt, uint64_t dst, const void *src,
                                size_t bytes) {
  CHECK_RT("fuser_mem_copy_h2d");
  if (!bytes) return NULL;
  if (!src)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_mem_copy_h2d: NULL src (%zu bytes)",
                              bytes);
  /* No driver allocates address 0; a copy there is a caller's bug that
   * some drivers would take for a host pointer. */
  if (!dst)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_mem_copy_h2d: device address 0 as dst "
                              "(%zu bytes)",
                              bytes);
  fuser_error *e = fr_enter(rt);
  if (e) return e;
  e = rt->drv->copy_h2d(rt->dctx, dst, src, bytes);
  fr_leave(rt);
  return e;
}

fuser_error *fuser_mem_copy_d2h(fuser_rt *rt, void *dst, uint64_t src,
                                size_t bytes) {
  CHECK_RT("fuser_mem_copy_d2h");
  if (!bytes) return NULL;
  if (!dst)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_mem_copy_d2h: NULL dst (%zu bytes)",
                              bytes);
  if (!src)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_mem_copy_d2h: device address 0 as src "
                              "(%zu bytes)",
                              bytes);
  fuser_error *e = fr_enter(rt);
  if (e) return e;
  e = rt->drv->copy_d2h(rt->dctx, dst, src, bytes);
  fr_leave(rt);
  return e;
}

fuser_error *fuser_stream_synchronize(fuser_rt *rt, void *stream) {
  CHECK_RT("fuser_stream_synchronize");
  fuser_error *e = fr_enter(rt);
  if (e) return e;
  uint64_t begin = fr_alloc_sync_begin(rt);
  e = rt->drv->synchronize(rt->dctx, stream, 0);
  fr_leave(rt);
  if (!e) fr_alloc_synchronized(rt, stream, false, begin);
  return e;
}

fuser_error *fuser_device_synchronize(fuser_rt *rt) {
  CHECK_RT("fuser_device_synchronize");
  fuser_error *e = fr_enter(rt);
  if (e) return e;
  uint64_t begin = fr_alloc_sync_begin(rt);
  e = rt->drv->synchronize(rt->dctx, NULL, 1);
  fr_leave(rt);
  if (!e) fr_alloc_synchronized(rt, NULL, true, begin);
  return e;
}

fuser_error *fuser_rt_trim(fuser_rt *rt) {
  CHECK_RT("fuser_rt_trim");
  fuser_error *e = fr_enter(rt);
  if (e) return e;
  e = fr_alloc_trim(rt);
  fr_leave(rt);
  return e;
}
