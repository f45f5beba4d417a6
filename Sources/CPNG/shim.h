// CPNG: the C headers Airlock uses, imported by exactly one Swift module (docs/architecture.md rule R2).
// Only libpng's simplified API is used: it reports errors through return codes and png_image.message, so no
// setjmp/longjmp crosses into Swift.
#pragma once
#include <png.h>

/// `PNG_IMAGE_VERSION`, for initialising a `png_image`.
static inline png_uint_32 airlock_png_image_version(void) { return PNG_IMAGE_VERSION; }

/// `PNG_IMAGE_FAILED(*image)`: non-zero when the last simplified-API call on `image` failed.
static inline int airlock_png_image_failed(const png_image *image) { return PNG_IMAGE_FAILED(*image); }
