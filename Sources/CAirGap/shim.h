// CAirGap: the Linux headers the air-gap guard needs (seccomp, BPF, prctl, rlimits, io_uring, ptrace), imported by
// exactly one Swift module: Signer (docs/architecture.md rule R2). prctl(2), ptrace(2) and syscall(2) are variadic, which Swift cannot
// call; these wrappers give them fixed arguments. No library to link: everything here is in glibc.
#pragma once
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/// prctl(PR_SET_NO_NEW_PRIVS, 1): required before an unprivileged process may install a seccomp filter.
static inline int airlock_set_no_new_privs(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/// seccomp(SECCOMP_SET_MODE_FILTER, flags, prog): with SECCOMP_FILTER_FLAG_TSYNC the filter covers every thread.
/// Returns 0, -1 with errno set, or (TSYNC) the id of a thread that could not be synchronised.
static inline long airlock_seccomp_set_filter(const struct sock_fprog *prog, unsigned int flags) {
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
}

/// prctl(PR_SET_PDEATHSIG, SIGKILL), then a check that the parent is still there: a hidden child of the signer (probe,
/// image decoder) never outlives the signer, even when it is being traced (SIGKILL cannot be stopped).
static inline int airlock_die_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return -1;
    if (getppid() != parent) _exit(4);
    return 0;
}

/// prctl(PR_SET_DUMPABLE, 0): no core dump, no ptrace attach by same-uid processes, /proc/PID owned by root.
static inline int airlock_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/// prctl(PR_GET_DUMPABLE): 0 when the process is not dumpable.
static inline int airlock_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

/// setrlimit(RLIMIT_CORE, 0/0): no core file at all.
static inline int airlock_disable_core_limit(void) {
    struct rlimit limit = {0, 0};
    return setrlimit(RLIMIT_CORE, &limit);
}

/// The soft RLIMIT_CORE, or -1 when it cannot be read.
static inline long long airlock_core_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_CORE, &limit) != 0) return -1;
    return (long long)limit.rlim_cur;
}

/// Closes every descriptor above 2 that /proc/self/fd lists (the directory's own descriptor excepted) and writes
/// the closed numbers to `closed` (at most `capacity`). Returns how many were closed, or -1 with errno set when
/// /proc/self/fd cannot be read (then nothing was closed).
static inline int airlock_close_inherited_descriptors(int *closed, int capacity) {
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return -1;
    int own = dirfd(dir);
    int found[1024];
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < 1024) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd > 2 && fd != own) found[count++] = fd;
    }
    closedir(dir);
    int done = 0;
    for (int i = 0; i < count; i++) {
        if (close(found[i]) == 0 || errno != EBADF) {
            if (done < capacity) closed[done] = found[i];
            done++;
        }
    }
    return done < capacity ? done : capacity;
}

/// The calling thread's errno.
static inline int airlock_errno(void) {
    return errno;
}

// MARK: The system calls the filter names (numbers of the architecture this is compiled for).

enum {
    AIRLOCK_NR_SOCKET = SYS_socket,
    AIRLOCK_NR_SOCKETPAIR = SYS_socketpair,
    AIRLOCK_NR_CONNECT = SYS_connect,
    AIRLOCK_NR_BIND = SYS_bind,
    AIRLOCK_NR_LISTEN = SYS_listen,
    AIRLOCK_NR_ACCEPT = SYS_accept,
    AIRLOCK_NR_ACCEPT4 = SYS_accept4,
    AIRLOCK_NR_SENDTO = SYS_sendto,
    AIRLOCK_NR_SENDMSG = SYS_sendmsg,
    AIRLOCK_NR_SENDMMSG = SYS_sendmmsg,
    AIRLOCK_NR_IO_URING_SETUP = 425,
    AIRLOCK_NR_IO_URING_ENTER = 426,
    AIRLOCK_NR_IO_URING_REGISTER = 427,
    AIRLOCK_NR_PTRACE = SYS_ptrace,
    AIRLOCK_NR_PROCESS_VM_READV = SYS_process_vm_readv,
    AIRLOCK_NR_PROCESS_VM_WRITEV = SYS_process_vm_writev,
    AIRLOCK_NR_BPF = SYS_bpf,
    AIRLOCK_NR_PIDFD_GETFD = 438,
    AIRLOCK_NR_EXECVE = SYS_execve,
    AIRLOCK_NR_EXECVEAT = SYS_execveat,
    AIRLOCK_NR_CLONE = SYS_clone,
    AIRLOCK_NR_CLONE3 = 435,
#ifdef SYS_fork
    AIRLOCK_NR_FORK = SYS_fork,
    AIRLOCK_NR_VFORK = SYS_vfork,
#else
    AIRLOCK_NR_FORK = -1,
    AIRLOCK_NR_VFORK = -1,
#endif
#ifdef SYS_open
    AIRLOCK_NR_OPEN = SYS_open,
#else
    AIRLOCK_NR_OPEN = -1,
#endif
    AIRLOCK_NR_OPENAT = SYS_openat,
    AIRLOCK_NR_OPENAT2 = 437,
};

/// AF_UNIX, the one family socketpair(2) keeps (a pair only reaches this process and its children).
static inline unsigned int airlock_af_unix(void) {
    return AF_UNIX;
}

/// CLONE_THREAD: clone(2) with it makes a thread; without it, a process.
static inline unsigned int airlock_clone_thread_flag(void) {
    return 0x00010000;
}

// MARK: Probes for `airlock-signer selftest`: the system calls made directly (not through libc's symbols, which the
// signer binary must not reference). Each returns the result or -1 with errno set.

/// socket(AF_INET, SOCK_DGRAM, 0).
static inline long airlock_probe_socket(void) {
    return syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
}

/// socketpair(AF_INET, SOCK_STREAM, 0, pair): a network family, which the filter refuses (the kernel refuses it too,
/// with EOPNOTSUPP, when no filter is on).
static inline long airlock_probe_socketpair_inet(void) {
    int pair[2];
    long result = syscall(SYS_socketpair, AF_INET, SOCK_STREAM, 0, pair);
    if (result == 0) {
        close(pair[0]);
        close(pair[1]);
    }
    return result;
}

/// connect(fd, 127.0.0.1:port).
static inline long airlock_probe_connect(int fd, unsigned short port) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return syscall(SYS_connect, fd, (const struct sockaddr *)&address, sizeof address);
}

/// sendmsg(fd, one byte, no address): on a connected datagram socket this sends.
static inline long airlock_probe_sendmsg(int fd) {
    char byte = 'x';
    struct iovec vector = {&byte, 1};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    return syscall(SYS_sendmsg, fd, &message, 0);
}

/// sendto(fd, one byte, 127.0.0.1:port).
static inline long airlock_probe_sendto(int fd, unsigned short port) {
    char byte = 'x';
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return syscall(SYS_sendto, fd, &byte, 1, 0, (const struct sockaddr *)&address, sizeof address);
}

/// io_uring_setup(1, params): the ring's descriptor is closed again on success.
static inline long airlock_probe_io_uring_setup(void) {
    unsigned char params[120];
    memset(params, 0, sizeof params);
    long fd = syscall(425, 1, params);
    if (fd >= 0) close((int)fd);
    return fd >= 0 ? 0 : -1;
}

/// ptrace(PTRACE_TRACEME): makes the parent this process's tracer when allowed.
static inline long airlock_probe_ptrace_traceme(void) {
    // PTRACE_PEEKUSER on this process changes nothing (PTRACE_TRACEME would make the parent a tracer and could leave
    // this process in a traced stop): the kernel answers ESRCH (not traced) when the call reaches it, which counts as
    // "ok" here; EPERM is what the seccomp filter answers.
    long answer = syscall(SYS_ptrace, 3 /* PTRACE_PEEKUSER */, getpid(), 0, 0);
    if (answer == -1 && errno != EPERM) return 0;
    return answer;
}

/// process_vm_readv on this process's own memory (one byte).
static inline long airlock_probe_process_vm_readv(void) {
    char source = 'x', target = 0;
    struct iovec local = {&target, 1}, remote = {&source, 1};
    return syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0);
}

/// bpf(BPF_PROG_LOAD with no program): EPERM from the filter; without it the kernel answers (EINVAL, EFAULT or EPERM
/// for an unprivileged caller).
static inline long airlock_probe_bpf(void) {
    unsigned char attr[128];
    memset(attr, 0, sizeof attr);
    return syscall(SYS_bpf, 5 /* BPF_PROG_LOAD */, attr, sizeof attr);
}

/// execve of a path that does not exist: ENOENT without a filter, EPERM under the decoder's filter.
static inline long airlock_probe_execve(void) {
    char *const argv[] = {(char *)"/nonexistent/airlock-probe", NULL};
    char *const envp[] = {NULL};
    return syscall(SYS_execve, "/nonexistent/airlock-probe", argv, envp);
}

/// openat of a file that exists (/proc/self/status) for reading: EPERM under the decoder's filter.
static inline long airlock_probe_openat(void) {
    long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) close((int)fd);
    return fd >= 0 ? 0 : -1;
}

/// A new process through clone(2) with SIGCHLD and no CLONE_THREAD (what fork does): the child exits at once.
static inline long airlock_probe_clone_process(void) {
    long pid = syscall(SYS_clone, 17 /* SIGCHLD */, 0, 0, 0, 0);
    if (pid == 0) _exit(0);
    if (pid > 0) {
        int status;
        while (waitpid((pid_t)pid, &status, 0) < 0 && errno == EINTR) {}
        return 0;
    }
    return -1;
}
