// CGIF: giflib, imported by exactly one Swift module (STYLE.md R2). Only the record-by-record decoding API is used, so
// every frame's size is checked before its pixels are read (DGifSlurp would allocate what a header declares).
#pragma once
#include <stddef.h>
#include <string.h>
#include <gif_lib.h>

/// A GIF held in memory, read through giflib's input callback.
struct airlock_gif_source {
    const unsigned char *data;
    size_t size;
    size_t offset;
};

static inline int airlock_gif_read(GifFileType *file, GifByteType *bytes, int length) {
    struct airlock_gif_source *source = (struct airlock_gif_source *)file->UserData;
    if (length <= 0) return 0;
    size_t left = source->size - source->offset;
    size_t count = (size_t)length < left ? (size_t)length : left;
    memcpy(bytes, source->data + source->offset, count);
    source->offset += count;
    return (int)count;
}

/// Opens the GIF in `source` (which must outlive the returned handle); NULL with `*error` set on failure.
static inline GifFileType *airlock_gif_open(struct airlock_gif_source *source, int *error) {
    return DGifOpen(source, airlock_gif_read, error);
}
