// CJPEG: libjpeg-turbo, imported by exactly one Swift module (STYLE.md R2).
// libjpeg reports fatal errors through error_exit, which must not return; the decoder below catches them with
// setjmp/longjmp entirely inside C, so no jump crosses a Swift frame. Swift sees one call with a status code.
#pragma once
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct airlock_jpeg_error {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int truncated;
};

static inline void airlock_jpeg_error_exit(j_common_ptr info) {
    struct airlock_jpeg_error *error = (struct airlock_jpeg_error *)info->err;
    (*info->err->format_message)(info, error->message);
    longjmp(error->jump, 1);
}

/// Warnings (corrupt but readable data) are not printed and the decode goes on as libjpeg allows, except that a
/// stream ending early (libjpeg pads the missing rows with gray) is remembered and reported as invalid.
static inline void airlock_jpeg_emit_message(j_common_ptr info, int level) {
    struct airlock_jpeg_error *error = (struct airlock_jpeg_error *)info->err;
    if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF && !error->truncated) {
        error->truncated = 1;
        (*info->err->format_message)(info, error->message);
    }
}

#define AIRLOCK_JPEG_OK 0
#define AIRLOCK_JPEG_INVALID 1
#define AIRLOCK_JPEG_TOO_LARGE 2
#define AIRLOCK_JPEG_NO_MEMORY 3

/// Decodes a JPEG held in memory to 8-bit gray (libjpeg converts color). On success `*pixels` is a malloc'ed buffer
/// of `*width * *height` bytes the caller frees. The pixel count is checked against `max_pixels` from the header,
/// before any pixel memory is allocated. On failure `message` holds libjpeg's text.
static inline int airlock_jpeg_decode_gray(const unsigned char *data, unsigned long size, size_t max_pixels,
                                           unsigned char **pixels, unsigned int *width, unsigned int *height,
                                           char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct airlock_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&error.base);
    error.base.error_exit = airlock_jpeg_error_exit;
    error.base.emit_message = airlock_jpeg_emit_message;
    error.message[0] = 0;
    error.truncated = 0;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        free(buffer);
        snprintf(message, message_size, "%s", error.message);
        return AIRLOCK_JPEG_INVALID;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, size);
    jpeg_read_header(&info, TRUE);
    *width = info.image_width;
    *height = info.image_height;
    if (info.image_width == 0 || info.image_height == 0 ||
        (size_t)info.image_width > max_pixels / (size_t)info.image_height) {
        jpeg_destroy_decompress(&info);
        return AIRLOCK_JPEG_TOO_LARGE;
    }
    info.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * (size_t)info.output_components;
    buffer = malloc(stride * info.output_height);
    if (buffer == NULL) {
        jpeg_destroy_decompress(&info);
        return AIRLOCK_JPEG_NO_MEMORY;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = buffer + (size_t)info.output_scanline * stride;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    if (error.truncated) {
        free(buffer);
        snprintf(message, message_size, "%s", error.message);
        return AIRLOCK_JPEG_INVALID;
    }
    *pixels = buffer;
    return AIRLOCK_JPEG_OK;
}
