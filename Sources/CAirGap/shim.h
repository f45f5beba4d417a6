// CAirGap: the Linux headers the air-gap guard needs (seccomp, BPF), imported by exactly one Swift module: Signer
// (docs/architecture.md rule R2). prctl(2) and syscall(2) are variadic, which Swift cannot call; these wrappers give them fixed
// arguments. No library to link: everything here is in glibc.
#pragma once
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/// prctl(PR_SET_NO_NEW_PRIVS, 1): required before an unprivileged process may install a seccomp filter.
static inline int airlock_set_no_new_privs(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/// seccomp(SECCOMP_SET_MODE_FILTER, flags, prog): with SECCOMP_FILTER_FLAG_TSYNC the filter covers every thread.
static inline int airlock_seccomp_set_filter(const struct sock_fprog *prog, unsigned int flags) {
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
}

/// prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog): the older interface (calling thread only), used as a fallback.
static inline int airlock_prctl_set_seccomp_filter(const struct sock_fprog *prog) {
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0);
}

/// The socket(2) system call made directly (not through libc's `socket` symbol, which the signer binary must not
/// reference): the probe of `airlock-signer selftest`. Returns the descriptor or -1 with errno set.
static inline long airlock_probe_socket(void) {
    return syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
}

/// The calling thread's errno.
static inline int airlock_errno(void) {
    return errno;
}

/// The system call number of socket(2) on the architecture this is compiled for.
static inline unsigned int airlock_socket_syscall_number(void) {
    return (unsigned int)SYS_socket;
}
