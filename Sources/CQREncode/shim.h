// CQREncode: the C headers Airlock uses, imported by exactly one Swift module (docs/architecture.md rule R2).
#pragma once
#include <errno.h>
#include <qrencode.h>

/// The calling thread's `errno`, which libqrencode sets when it returns NULL (EINVAL, ENOMEM, ERANGE).
static inline int airlock_qrencode_errno(void) { return errno; }

/// Clears the calling thread's `errno` before a libqrencode call.
static inline void airlock_qrencode_clear_errno(void) { errno = 0; }
