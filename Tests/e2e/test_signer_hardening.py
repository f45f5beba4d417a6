"""The signer's process (docs/architecture.md section 5) and its journal (section 2, `audit`), seen from outside.

- `selftest --json`: every way out fails with EPERM under the filter, also connect/sendmsg on sockets made before it;
  the control calls succeed in a child that has no filter yet, and in this Python process;
- a descriptor inherited at start is closed before the signer does anything (seen from the other end of a pipe while
  the signer still runs; `cat` is the control that keeps it); RLIMIT_CORE is 0 whatever the parent set; the process
  is not dumpable;
- PNG images are decoded in a child process (strace sees it exec'd with the hidden argument and installing its own
  filter) and the stricter filter refuses execve/openat/fork there; stdin and image sizes are bounded (exit 2);
- the keyed journal: an intact one verifies (exit 0, and this file recomputes each entry's HMAC from the mnemonic on
  its own); a cut tail, an edited entry, and a chain rewritten with another key or as unkeyed SHA-256 each exit 3;
- `init` prints the words only to a terminal or with --show-secret.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import hmac
import json
import os
import resource
import select
import shutil
import socket
import struct
import subprocess
import zlib

import pytest
from embit import bip32, bip39, script
from embit.descriptor import Descriptor
from embit.networks import NETWORKS
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from signer_psbt import Coin, Vault, embit_psbt, strip_checksum

NET = NETWORKS["regtest"]
STRANGER = script.p2wpkh(bip32.HDKey.from_seed(b"\x42" * 32).key.get_public_key()).address(NET)
SYS_IO_URING_SETUP = 425  # the same number on x86_64 and aarch64


def signer(bin_dir, *args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / "airlock-signer"), *args], capture_output=True, **kw)


# --- selftest -----------------------------------------------------------------------------------------------------


def test_selftest_every_way_out_fails_and_the_control_succeeds(bin_dir, home, tmp_path):
    marker = tmp_path / "inherited-marker.txt"
    marker.write_text("an open file the signer must not keep\n")
    fd = os.open(marker, os.O_RDONLY)  # inheritable only through pass_fds
    try:
        proc = signer(bin_dir, "selftest", "--json", env=home.env, pass_fds=(fd,))
    finally:
        os.close(fd)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True and out["failures"] == []
    assert out["seccomp_mode"] == 2
    calls = {p["call"]: p["result"] for p in out["in_process"]}
    for name in (
        "socket",
        "connect",
        "sendmsg",
        "sendto",
        "io_uring_setup",
        "ptrace",
        "process_vm_readv",
        "bpf",
        "socketpair (AF_INET)",
    ):
        assert calls[name] == "EPERM", (name, calls)
    child = out["pre_filter_child"]
    assert {p["call"]: p["result"] for p in child["control"]} == {
        "socket": "ok",
        "connect": "ok",
        "sendmsg": "ok",
        "io_uring_setup": "ok",
        "ptrace": "ok",
    }
    filtered = {p["call"]: p["result"] for p in child["filtered"]}
    assert filtered["connect (socket made before the filter)"] == "EPERM"
    assert filtered["sendmsg (socket connected before the filter)"] == "EPERM"
    assert filtered["sendto (socket made before the filter)"] == "EPERM"
    assert filtered["socket"] == "EPERM" and filtered["io_uring_setup"] == "EPERM"
    sandbox = {p["call"]: p["result"] for p in out["decoder_child"]["filtered"]}
    assert sandbox == {"execve": "EPERM", "openat": "EPERM", "clone (new process)": "EPERM", "socket": "EPERM"}
    # The descriptor passed in was closed at start, and nothing open refers to the file any more.
    assert fd in out["closed_at_start"], out["closed_at_start"]
    assert all(str(marker) not in d["target"] for d in out["open_descriptors"]), out["open_descriptors"]
    assert out["dumpable"] is False and out["core_limit"] == 0


def test_the_same_calls_succeed_in_this_process_without_a_filter():
    """The control beside the selftest's own: this machine lets an unfiltered process make a socket, connect and
    send on it, and set up an io_uring, so EPERM in the signer comes from its filter."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("127.0.0.1", 9))
        assert s.sendmsg([b"x"]) == 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    params = ctypes.create_string_buffer(120)
    ring = libc.syscall(SYS_IO_URING_SETUP, 1, params)
    assert ring >= 0, errno.errorcode.get(ctypes.get_errno())
    os.close(ring)


# --- descriptors, core dumps --------------------------------------------------------------------------------------


def _holds_pipe(argv, env) -> tuple[bool, int | None]:
    """Starts argv with the write end of a pipe inherited (and stdin a pipe we keep open), drops our copy of the
    write end, and asks at once whether the read end is at EOF while the process still runs. Returns (closed early,
    exit status)."""
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, pass_fds=(write_end,)
    )
    os.close(write_end)
    try:
        # The process waits on stdin, so it is alive throughout. Wait until it is started (it has read nothing).
        if "airlock-signer" in argv[0]:
            ready, _, _ = select.select([read_end], [], [], 120)  # EOF arrives once the signer closed its copy
        else:
            ready, _, _ = select.select([read_end], [], [], 0)
        closed = bool(ready) and os.read(read_end, 1) == b"" and proc.poll() is None
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
        os.close(read_end)
    return closed, proc.returncode


def test_an_inherited_descriptor_is_closed_at_start(bin_dir, home):
    closed, _ = _holds_pipe([str(bin_dir / "airlock-signer"), "inspect", "-"], home.env)
    assert closed, "the signer kept the inherited pipe open while it ran"
    # The control: cat keeps what it inherits, so the same check sees the pipe still open.
    kept, status = _holds_pipe([shutil.which("cat")], home.env)
    assert not kept and status == 0


def test_core_limit_is_zero_whatever_the_parent_set(bin_dir, home):
    def allow_cores():
        resource.setrlimit(resource.RLIMIT_CORE, (1 << 20, 1 << 20))

    proc = subprocess.Popen(
        [str(bin_dir / "airlock-signer"), "inspect", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=home.env,
        preexec_fn=allow_cores,
    )
    control = subprocess.Popen(
        [shutil.which("cat")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=allow_cores
    )
    try:

        def core_line(pid):
            for _ in range(200):
                text = open(f"/proc/{pid}/limits").read()
                line = next(ln for ln in text.splitlines() if ln.startswith("Max core file size"))
                if pid != proc.pid or line.split()[4] == "0":
                    return line.split()[4:6]
                select.select([], [], [], 0.05)  # the signer may not have reached main yet
            return line.split()[4:6]

        assert core_line(control.pid) == ["1048576", "1048576"]  # what the parent set reaches a plain child
        assert core_line(proc.pid) == ["0", "0"]
    finally:
        for p in (proc, control):
            p.stdin.close()
            p.wait(timeout=120)


# --- images and sizes ---------------------------------------------------------------------------------------------


def _png(width: int, height: int, rows: bytes | None = None) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    body = zlib.compress(rows if rows is not None else b"\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def _qr_png(path, text: str):
    import segno

    segno.make(text, micro=False).save(str(path), scale=4)


def test_png_is_decoded_in_a_sandboxed_child(bin_dir, home, tmp_path):
    png = tmp_path / "address.png"
    _qr_png(png, STRANGER)
    trace = tmp_path / "trace.txt"
    proc = subprocess.run(
        [
            "strace",
            "-f",
            "-o",
            str(trace),
            "-e",
            "trace=execve,seccomp,openat",
            str(bin_dir / "airlock-signer"),
            "inspect",
            str(png),
            "--json",
        ],
        capture_output=True,
        env=home.env,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["address"] == STRANGER
    lines = trace.read_text().splitlines()
    children = [ln.split()[0] for ln in lines if "execve(" in ln and "__airlock-decode-image" in ln and "= 0" in ln]
    assert len(children) == 1, lines
    child = children[0]
    mine = [ln for ln in lines if ln.split()[0] == child]
    # The child installs its own (stricter) filter with TSYNC before reading, then opens no file at all.
    installed = next(
        i for i, ln in enumerate(mine) if "seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC" in ln
    )
    assert not [ln for ln in mine[installed:] if "openat(" in ln and "= -1 EPERM" not in ln], mine[installed:]
    # The PNG file itself was opened by the parent only: the child got its bytes on a pipe.
    openers = {ln.split()[0] for ln in lines if "openat(" in ln and str(png) in ln and "= -1" not in ln}
    assert openers and child not in openers


def test_an_image_over_the_pixel_limit_is_refused(bin_dir, home, tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(_png(7000, 7000))  # 49 megapixels, over the 40 megapixel limit; a few bytes on disk
    proc = signer(bin_dir, "inspect", str(big), env=home.env)
    assert proc.returncode == 2, proc.stderr
    assert b"pixels, more than" in proc.stderr and b"big.png" in proc.stderr
    # The control: a real QR image of ordinary size decodes.
    small = tmp_path / "small.png"
    _qr_png(small, STRANGER)
    assert signer(bin_dir, "inspect", str(small), env=home.env).returncode == 0


def test_a_broken_png_is_invalid_input_not_a_crash(bin_dir, home, tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(200))
    proc = signer(bin_dir, "inspect", str(bad), env=home.env)
    assert proc.returncode == 2 and b"bad.png" in proc.stderr, proc.stderr


def test_stdin_over_the_limit_is_refused(bin_dir, home):
    proc = signer(bin_dir, "inspect", "-", env=home.env, input=b"0" * ((64 << 20) + 1))
    assert proc.returncode == 2, proc.stderr
    assert b"stdin holds more than 64 MiB" in proc.stderr
    # The control: the same command reads an ordinary stdin.
    ok = signer(bin_dir, "inspect", "-", "--json", env=home.env, input=STRANGER.encode())
    assert ok.returncode == 0 and json.loads(ok.stdout)["address"] == STRANGER


# --- init shows the words only to a terminal -----------------------------------------------------------------------


def test_init_without_a_terminal_refuses_to_print_the_words(bin_dir, home):
    pw = home.root / "pw.txt"
    pw.write_text("pw-init\n")
    args = (
        "init",
        "--words",
        "12",
        "--network",
        "regtest",
        "--password-file",
        str(pw),
        "--skip-backup-check",
        "--kdf-memory",
        "64",
        "--json",
    )
    refused = signer(bin_dir, *args, env=home.env)
    assert refused.returncode == 4 and b"--show-secret" in refused.stderr
    # Under --json the refusal itself is the JSON error object; no words are in it, no vault is written.
    assert json.loads(refused.stdout)["error"]["code"] == 4 and "mnemonic" not in json.loads(refused.stdout)
    assert not home.vault.exists()
    shown = signer(bin_dir, *args, "--show-secret", env=home.env)
    assert shown.returncode == 0, shown.stderr
    assert bip39.mnemonic_is_valid(json.loads(shown.stdout)["mnemonic"]) and home.vault.exists()


# --- the keyed journal --------------------------------------------------------------------------------------------


def _coin(desc: str, index: int, value: int) -> Coin:
    spk = Descriptor.from_string(strip_checksum(desc)).derive(index, branch_index=0).script_pubkey()
    tx = Transaction(version=2, vin=[TransactionInput(os.urandom(32), 0)], vout=[TransactionOutput(value, spk)])
    return Coin(tx, 0, index)


def _encoding(entry: dict, keyed: bool) -> bytes:
    """docs/formats.md's canonical entry encoding, written here from the document."""
    out = bytearray()
    u64 = lambda v: out.extend(v.to_bytes(8, "big"))  # noqa: E731

    def blob(b: bytes):
        u64(len(b))
        out.extend(b)

    def opt(v):
        if v is None:
            out.append(0)
        else:
            out.append(1)
            u64(v)

    blob(b"airlock-audit-v2" if keyed else b"airlock-audit-v1")
    u64(entry["seq"])
    blob(entry["time"].encode())
    blob(bytes.fromhex(entry["psbt_sha256"]))
    blob(entry["txid"].encode())
    u64(len(entry["destinations"]))
    for d in entry["destinations"]:
        blob(d["address"].encode())
        u64(d["amount"])
    opt(entry.get("change"))
    opt(entry.get("fee"))
    if entry.get("note") is None:
        out.append(0)
    else:
        out.append(1)
        blob(entry["note"].encode())
    if keyed:
        u64(len(entry["allow"]))
        for flag in entry["allow"]:
            blob(flag.encode())
        u64(len(entry["signed_inputs"]))
        for index in entry["signed_inputs"]:
            u64(index)
    blob(bytes.fromhex(entry["prev"]))
    return bytes(out)


def journal_key(mnemonic: str) -> bytes:
    """HKDF-Extract with HMAC-SHA-512 over the BIP39 entropy (docs/formats.md)."""
    return hmac.new(b"airlock audit journal v2", bip39.mnemonic_to_bytes(mnemonic), hashlib.sha512).digest()


def rechain(entries: list[dict], key: bytes | None) -> list[str]:
    """The entries with every hash recomputed: keyed under `key`, or (None) as the unkeyed v1 SHA-256 chain."""
    prev = bytes(32)
    lines = []
    for entry in entries:
        entry = dict(entry, prev=prev.hex())
        if key is None:
            for field in ("v", "allow", "signed_inputs"):
                entry.pop(field, None)
            digest = hashlib.sha256(_encoding(entry, keyed=False)).digest()
        else:
            digest = hmac.new(key, _encoding(entry, keyed=True), hashlib.sha512).digest()[:32]
        entry["hash"] = digest.hex()
        prev = digest
        lines.append(json.dumps(entry, sort_keys=True, separators=(",", ":")))
    return lines


@pytest.fixture
def signed_three(bin_dir, home, tmp_path):
    """A vault that signed three PSBTs (embit-made), the third with --allow-missing-prev-tx; its journal."""
    vault = Vault(bin_dir, home.env, home.root, "journal")
    desc = vault.export("wpkh")
    for n in range(3):
        coin = _coin(desc, n, 100_000 + n)
        psbt = embit_psbt(desc, [coin], [(STRANGER, 50_000)], change=(n, coin.value - 51_000))
        path = tmp_path / f"p{n}.psbt"
        path.write_bytes(psbt.serialize())
        extra = ("--allow-missing-prev-tx",) if n == 2 else ()
        vault.run("sign", str(path), "--yes", *extra, check=True)
    journal = vault.path.with_name(vault.path.name + ".audit")
    return vault, journal


def verify(vault: Vault) -> subprocess.CompletedProcess:
    return vault.run("audit", "--verify", "--json")


def test_intact_journal_verifies_and_each_hmac_recomputes_from_the_mnemonic(signed_three):
    vault, journal = signed_three
    proc = verify(vault)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["entries"] == 3 and out["keyed"] == 3 and out["legacy"] == 0 and out["anchored"] is True
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [e["signed_inputs"] for e in entries] == [[0], [0], [0]]
    assert entries[0]["allow"] == ["AIRLOCK_ALLOW_NETWORK"]
    assert entries[2]["allow"] == ["--allow-missing-prev-tx", "AIRLOCK_ALLOW_NETWORK"]
    # Rechained here with the key derived from the mnemonic: byte for byte the journal the signer wrote.
    assert rechain(entries, journal_key(vault.mnemonic)) == journal.read_text().splitlines()
    # The vault header records the head: the count and the last hash.
    header = json.loads(vault.path.read_text())
    assert header["version"] == 2
    assert header["audit"] == {"entries": 3, "head": entries[-1]["hash"]}


def test_a_cut_tail_is_detected(signed_three):
    vault, journal = signed_three
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:2]) + "\n")
    proc = verify(vault)
    assert proc.returncode == 3, proc.stderr
    assert b"truncated" in proc.stderr and b"records 3" in proc.stderr


def test_an_edited_entry_is_detected(signed_three):
    vault, journal = signed_three
    lines = journal.read_text().splitlines()
    assert '"amount":50000' in lines[1]
    lines[1] = lines[1].replace('"amount":50000', '"amount":5000')
    journal.write_text("\n".join(lines) + "\n")
    proc = verify(vault)
    assert proc.returncode == 3 and b"line 2" in proc.stderr, proc.stderr


def test_an_edited_override_list_is_detected(signed_three):
    vault, journal = signed_three
    lines = journal.read_text().splitlines()
    lines[2] = lines[2].replace('"--allow-missing-prev-tx",', "")
    journal.write_text("\n".join(lines) + "\n")
    proc = verify(vault)
    assert proc.returncode == 3 and b"line 3" in proc.stderr, proc.stderr


def test_a_chain_rewritten_with_another_key_is_detected(signed_three):
    vault, journal = signed_three
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    entries[1]["destinations"][0]["amount"] = 1  # the attacker's edit, re-chained with a key of their own
    journal.write_text("\n".join(rechain(entries, b"\x01" * 64)) + "\n")
    proc = verify(vault)
    assert proc.returncode == 3 and b"another key" in proc.stderr, proc.stderr


def test_a_chain_rewritten_as_unkeyed_sha256_is_detected(signed_three):
    vault, journal = signed_three
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    journal.write_text("\n".join(rechain(entries, None)) + "\n")
    proc = verify(vault)
    assert proc.returncode == 3, proc.stderr
    assert b"rewritten" in proc.stderr or b"head" in proc.stderr


def test_the_rewrite_with_the_right_key_is_the_control(signed_three):
    """What makes the two rewrites above fail is the key and the head, not the rewriting itself."""
    vault, journal = signed_three
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    journal.write_text("\n".join(rechain(entries, journal_key(vault.mnemonic))) + "\n")
    assert verify(vault).returncode == 0
    # And with the right key, an edit still fails: the head sealed in the vault no longer matches.
    entries[2]["fee"] = 1
    journal.write_text("\n".join(rechain(entries, journal_key(vault.mnemonic))) + "\n")
    proc = verify(vault)
    assert proc.returncode == 3 and b"head" in proc.stderr, proc.stderr


def test_verify_needs_the_password(signed_three, bin_dir, home):
    vault, _ = signed_three
    wrong = home.root / "wrong.txt"
    wrong.write_text("not the password\n")
    proc = subprocess.run(
        [
            str(bin_dir / "airlock-signer"),
            "audit",
            "--verify",
            "--vault",
            str(vault.path),
            "--password-file",
            str(wrong),
        ],
        capture_output=True,
        env=home.env,
    )
    assert proc.returncode == 3 and b"password" in proc.stderr


def test_a_video_is_read_under_the_filter(bin_dir, home, tmp_path):
    """ffmpeg runs as a child of the filtered signer (posix_spawn; Foundation's Process could not see it end under
    the filter and hung): the code in a short MP4 is read and the run ends."""
    for i in range(4):
        _qr_png(tmp_path / f"f{i:03d}.png", STRANGER)
    video = tmp_path / "code.mp4"
    subprocess.run(
        [
            "ffmpeg",
            "-loglevel",
            "error",
            "-framerate",
            "4",
            "-i",
            str(tmp_path / "f%03d.png"),
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            str(video),
        ],
        check=True,
    )
    proc = signer(bin_dir, "inspect", str(video), "--json", env=home.env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["address"] == STRANGER
