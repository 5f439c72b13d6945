/* The caching allocator of intermediates.
 *
 * Rule (docs/runtime.md, "The allocator rule"): a block a call used is
 * returned to the cache at the end of the call as *pending on the call's
 * stream*. A pending block is handed out again at once to a later call on
 * the same stream (stream order makes that safe: its kernels start after
 * the earlier kernels ended), and to a call on any other stream only after
 * fuser_stream_synchronize() of its stream or fuser_device_synchronize().
 * CU_STREAM_PER_THREAD (0x2) names a different stream in every thread, so
 * blocks pending on it wait for a synchronization in every case.
 *
 * Size classes: 256 bytes, then four classes per power of two (waste below
 * 25%). One lock guards the free lists; the driver is called outside it.
 */
#include "internal.h"

#include <stdlib.h>

#define PER_THREAD_STREAM ((void *)(uintptr_t)0x2)

static unsigned size_class(uint64_t bytes, uint64_t *class_size) {
  if (bytes <= 256) {
    *class_size = 256;
    return 0;
  }
  unsigned msb = 63u - (unsigned)__builtin_clzll(bytes - 1);
  uint64_t base = 1ull << msb, step = base >> 2;
  uint64_t k = (bytes - 1 - base) / step + 1; /* 1 .. 4 */
  *class_size = base + k * step;
  return (msb - 8) * 4 + (unsigned)k;
}

void fr_alloc_init(fr_allocator *a) {
  pthread_mutex_init(&a->lock, NULL);
  for (int i = 0; i < FR_NUM_CLASSES; i++) a->classes[i] = NULL;
  a->release_seq = 0;
  a->driver_allocs = a->driver_frees = a->cache_hits = 0;
  a->cached_bytes = a->in_use_bytes = 0;
}

/* Detaches every block no stream may still use. Lock held. */
static fr_block *detach_idle(fr_allocator *a) {
  fr_block *idle = NULL;
  for (int c = 0; c < FR_NUM_CLASSES; c++) {
    fr_block **pp = &a->classes[c];
    while (*pp) {
      fr_block *b = *pp;
      if (!b->pending) {
        *pp = b->next;
        b->next = idle;
        idle = b;
        a->cached_bytes -= b->size;
      } else {
        pp = &b->next;
      }
    }
  }
  return idle;
}

static fuser_error *free_blocks(fuser_rt *rt, fr_block *list) {
  fuser_error *first = NULL;
  uint64_t n = 0;
  while (list) {
    fr_block *next = list->next;
    fuser_error *e = rt->drv->mem_free(rt->dctx, list->ptr);
    if (e && !first)
      first = e;
    else
      fuser_error_destroy(e);
    free(list);
    n++;
    list = next;
  }
  pthread_mutex_lock(&rt->alloc.lock);
  rt->alloc.driver_frees += n;
  pthread_mutex_unlock(&rt->alloc.lock);
  return first;
}

fuser_error *fr_alloc_acquire(fuser_rt *rt, uint64_t bytes, void *stream,
                              fr_block **out) {
  fr_allocator *a = &rt->alloc;
  uint64_t csize;
  unsigned c = size_class(bytes, &csize);
  bool reuse_pending = stream != PER_THREAD_STREAM;
  pthread_mutex_lock(&a->lock);
  for (fr_block **pp = &a->classes[c]; *pp; pp = &(*pp)->next) {
    fr_block *b = *pp;
    if (!b->pending || (reuse_pending && b->stream == stream)) {
      *pp = b->next;
      b->next = NULL;
      a->cache_hits++;
      a->in_use_bytes += b->size;
      pthread_mutex_unlock(&a->lock);
      *out = b;
      return NULL;
    }
  }
  pthread_mutex_unlock(&a->lock);

  fr_block *b = malloc(sizeof *b);
  if (!b)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of host memory for an allocator block");
  uint64_t ptr = 0;
  fuser_error *e = rt->drv->mem_alloc(rt->dctx, (size_t)csize, &ptr);
  if (e && fuser_error_code_of(e) == FUSER_ERROR_OUT_OF_MEMORY) {
    /* Give the idle cache back to the driver and try once more. */
    pthread_mutex_lock(&a->lock);
    fr_block *idle = detach_idle(a);
    pthread_mutex_unlock(&a->lock);
    if (idle) {
      fuser_error_destroy(free_blocks(rt, idle));
      fuser_error_destroy(e);
      e = rt->drv->mem_alloc(rt->dctx, (size_t)csize, &ptr);
    }
  }
  if (e) {
    free(b);
    return fr_error_wrap(e, "allocating an intermediate of %llu bytes",
                         (unsigned long long)bytes);
  }
  b->ptr = ptr;
  b->size = csize;
  b->stream = NULL;
  b->pending = false;
  b->seq = 0;
  b->next = NULL;
  pthread_mutex_lock(&a->lock);
  a->driver_allocs++;
  a->cached_bytes += csize;
  a->in_use_bytes += csize;
  pthread_mutex_unlock(&a->lock);
  /* cached_bytes counts blocks owned by the cache in any state. */
  *out = b;
  return NULL;
}

void fr_alloc_release(fuser_rt *rt, fr_block **blocks, size_t n, void *stream,
                      bool used) {
  fr_allocator *a = &rt->alloc;
  pthread_mutex_lock(&a->lock);
  for (size_t i = 0; i < n; i++) {
    fr_block *b = blocks[i];
    if (!b) continue;
    if (used) {
      b->pending = true;
      b->stream = stream;
      b->seq = a->release_seq + 1;
    }
    uint64_t csize;
    unsigned c = size_class(b->size, &csize);
    b->next = a->classes[c];
    a->classes[c] = b;
    a->in_use_bytes -= b->size;
  }
  if (used) a->release_seq++;
  pthread_mutex_unlock(&a->lock);
}

uint64_t fr_alloc_sync_begin(fuser_rt *rt) {
  pthread_mutex_lock(&rt->alloc.lock);
  uint64_t s = rt->alloc.release_seq;
  pthread_mutex_unlock(&rt->alloc.lock);
  return s;
}

void fr_alloc_synchronized(fuser_rt *rt, void *stream, bool whole_device,
                           uint64_t begin) {
  fr_allocator *a = &rt->alloc;
  pthread_mutex_lock(&a->lock);
  for (int c = 0; c < FR_NUM_CLASSES; c++)
    for (fr_block *b = a->classes[c]; b; b = b->next)
      if (b->pending && b->seq <= begin &&
          (whole_device || b->stream == stream))
        b->pending = false;
  pthread_mutex_unlock(&a->lock);
}

fuser_error *fr_alloc_trim(fuser_rt *rt) {
  pthread_mutex_lock(&rt->alloc.lock);
  fr_block *idle = detach_idle(&rt->alloc);
  pthread_mutex_unlock(&rt->alloc.lock);
  return free_blocks(rt, idle);
}

void fr_alloc_destroy(fuser_rt *rt) {
  fr_allocator *a = &rt->alloc;
  fr_block *all = NULL;
  pthread_mutex_lock(&a->lock);
  for (int c = 0; c < FR_NUM_CLASSES; c++) {
    while (a->classes[c]) {
      fr_block *b = a->classes[c];
      a->classes[c] = b->next;
      b->next = all;
      all = b;
    }
  }
  a->cached_bytes = 0;
  pthread_mutex_unlock(&a->lock);
  fuser_error_destroy(free_blocks(rt, all));
  pthread_mutex_destroy(&a->lock);
}

void fuser_rt_get_stats(fuser_rt *rt, fuser_rt_stats *out) {
  if (!rt || !out) return;
  pthread_mutex_lock(&rt->alloc.lock);
  out->driver_allocs = rt->alloc.driver_allocs;
  out->driver_frees = rt->alloc.driver_frees;
  out->cache_hits = rt->alloc.cache_hits;
  out->cached_bytes = rt->alloc.cached_bytes;
  out->in_use_bytes = rt->alloc.in_use_bytes;
  pthread_mutex_unlock(&rt->alloc.lock);
}
