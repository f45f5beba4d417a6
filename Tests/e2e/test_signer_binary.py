"""The built airlock-signer binary itself (docs/architecture.md sections 1 and 5): it links no FoundationNetworking, its dynamic
symbol table asks for no socket calls, and the seccomp filter makes socket() fail. The package-level dependency rule
is the Swift ArchitectureTests target (run by `swift test` in scripts/test)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

NETWORK_SYMBOLS = {
    "socket",
    "connect",
    "socketpair",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "recvfrom",
    "getaddrinfo",
    "gethostbyname",
}


def undefined_symbols(binary: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--undefined-only", str(binary)], capture_output=True, text=True, check=True)
    names = set()
    for line in out.stdout.splitlines():
        name = line.split()[-1]
        names.add(name.split("@")[0])
    return names


def test_links_no_networking_library(bin_dir):
    out = subprocess.run(["ldd", str(bin_dir / "airlock-signer")], capture_output=True, text=True, check=True).stdout
    libs = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert any(name.startswith("libc.so") for name in libs), out  # the listing is real
    assert not [name for name in libs if "FoundationNetworking" in name or "curl" in name or "NIO" in name], out
    assert "libFoundation.so" in out  # (plain Foundation is allowed; only its networking half is not)


def test_references_no_socket_symbols(bin_dir):
    names = undefined_symbols(bin_dir / "airlock-signer")
    assert "malloc" in names or "free" in names, "nm listed no undefined symbols at all"
    assert not names & NETWORK_SYMBOLS, sorted(names & NETWORK_SYMBOLS)


def test_the_symbol_check_sees_socket_calls_where_they_are(bin_dir):
    """The control: libdbus, which libzbar pulls in (for its camera support), does call socket/connect, and the same
    check finds them. Those calls are the reason the seccomp filter exists: a library's code runs in the signer's
    process, so linking alone proves nothing about what it can do at run time."""
    out = subprocess.run(["ldd", str(bin_dir / "airlock-signer")], capture_output=True, text=True, check=True).stdout
    dbus = [line.split("=>")[1].split()[0] for line in out.splitlines() if "libdbus" in line and "=>" in line]
    assert dbus, "libdbus is no longer linked: pick another control library"
    assert {"socket", "connect"} <= undefined_symbols(Path(dbus[0]))


def test_selftest_proves_socket_fails_under_seccomp(bin_dir, home):
    proc = subprocess.run([str(bin_dir / "airlock-signer"), "selftest", "--json"], capture_output=True, env=home.env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["seccomp_mode"] == 2, out
    assert out["socket"] == "failed with EPERM" and out["socket_blocked"] is True, out
    text = subprocess.run([str(bin_dir / "airlock-signer"), "selftest"], capture_output=True, text=True, env=home.env)
    assert text.returncode == 0 and "OK: the air-gap filter blocks every way out." in text.stdout


def test_selftest_prints_the_sha256_of_its_own_executable(bin_dir, home, tmp_path):
    """The digest is of the file that runs (/proc/self/exe), compared with hashlib; a copy with one byte appended
    (the control: another file) reports another digest."""
    signer = bin_dir / "airlock-signer"
    proc = subprocess.run([str(signer), "selftest", "--json"], capture_output=True, env=home.env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["executable_sha256"] == hashlib.sha256(signer.read_bytes()).hexdigest()
    assert out["version"].startswith("0.1.0 (")
    text = subprocess.run([str(signer), "selftest"], capture_output=True, text=True, env=home.env)
    assert f"executable SHA-256: {out['executable_sha256']}" in text.stdout
    changed = tmp_path / "airlock-signer"
    changed.write_bytes(signer.read_bytes() + b"\0")
    changed.chmod(0o755)
    other = json.loads(subprocess.run([str(changed), "selftest", "--json"], capture_output=True, env=home.env).stdout)
    assert other["executable_sha256"] == hashlib.sha256(changed.read_bytes()).hexdigest()
    assert other["executable_sha256"] != out["executable_sha256"]
