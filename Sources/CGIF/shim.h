// CGIF: giflib, imported by exactly one Swift module (STYLE.md R2). Only the record-by-record decoding API is used, so
// every frame's size is checked before its pixels are read (DGifSlurp would allocate what a header declares).
#pragma once
#include <stddef.h>
#include <stdlib.h>
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

/// A growing memory buffer that giflib's encoder writes into.
struct airlock_gif_sink {
    unsigned char *data;
    size_t size;
    size_t capacity;
    int failed;
};

static inline int airlock_gif_write(GifFileType *file, const GifByteType *bytes, int length) {
    struct airlock_gif_sink *sink = (struct airlock_gif_sink *)file->UserData;
    if (length <= 0) return 0;
    if (sink->size + (size_t)length > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 4096;
        while (capacity < sink->size + (size_t)length) capacity *= 2;
        unsigned char *grown = realloc(sink->data, capacity);
        if (grown == NULL) {
            sink->failed = 1;
            return 0;
        }
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->size, bytes, (size_t)length);
    sink->size += (size_t)length;
    return length;
}

/// Opens an encoder writing into `sink` (which must outlive the handle); NULL with `*error` set on failure.
static inline GifFileType *airlock_gif_create(struct airlock_gif_sink *sink, int *error) {
    return EGifOpen(sink, airlock_gif_write, error);
}
