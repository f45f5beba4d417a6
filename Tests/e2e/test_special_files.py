"""Issue 34: a write never replaces what is not a regular file.

Every command that writes a file follows one rule (docs/architecture.md section 2, "Writing files"): a regular file or a
new path is replaced atomically; a character device, a FIFO or `/dev/stdout` is written through and stays what it is; a
symbolic link is followed to its target and stays a link. Each writing command is run here against a FIFO read by
`cat`, a symlink, a character device (a node made in a temporary directory, and the machine's own `/dev/null`), and a
regular file (the control, and SIGKILL mid-write leaves the old file or the new one).
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
from signer_psbt import KDF, Vault, address, embit_psbt
from test_signer_attacks import coin_for
from watcher_helpers import make_account

IS_ROOT = os.geteuid() == 0


class Setup:
    """A signer vault, a watcher wallet imported from it, an unsigned PSBT and the inputs the commands read."""

    def __init__(self, bin_dir: Path, home, tmp: Path):
        self.bin_dir = bin_dir
        self.home = home
        self.tmp = tmp
        self.vault = Vault(bin_dir, home.env, tmp, "v")
        descriptor = self.vault.export("wpkh")
        (tmp / "account.txt").write_text(descriptor + "\n")
        self.watcher("import", str(tmp / "account.txt"), "--name", "w", check=True)
        (tmp / "ks-pw.txt").write_text("keystore password\n")
        psbt = embit_psbt_for_vault(self.vault)
        (tmp / "spend.psbt").write_bytes(psbt)
        (tmp / "labels.jsonl").write_text(
            json.dumps({"type": "addr", "ref": address(descriptor, 0), "label": "a label"}) + "\n"
        )
        self.watcher("labels", "import", str(tmp / "labels.jsonl"), check=True)

    def watcher(self, *args: str, check: bool = False) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [str(self.bin_dir / "airlock-watcher"), *args],
            capture_output=True,
            env=self.home.env,
            cwd=self.tmp,
            timeout=300,
        )
        if check:
            assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        return proc

    def signer(self, *args: str) -> subprocess.CompletedProcess:
        return self.vault.run(*args)


def embit_psbt_for_vault(vault: Vault) -> bytes:
    """A PSBT spending one coin of the vault's wpkh account (receive 0) to an outside address, built by embit."""
    descriptor = vault.export("wpkh")
    outside = make_account("wpkh").address(7)
    return embit_psbt(descriptor, [coin_for(descriptor, 0, 100_000)], [(outside, 60_000)]).serialize()


# Each writing command: (name, argv for an output path, which tool). The output path is the last word.
COMMANDS = {
    "signer export --out": ("signer", lambda p: ["export", "--script", "wpkh", "--out", p]),
    "signer export --qr": ("signer", lambda p: ["export", "--script", "wpkh", "--format", "descriptor", "--qr", p]),
    "signer sign --out": ("signer", lambda p: ["sign", "spend.psbt", "--yes", "--out", p]),
    "signer key export keystore": (
        "signer",
        lambda p: [
            "key",
            "export",
            "--chain",
            "eth",
            "--index",
            "0",
            "--format",
            "keystore",
            "--keystore-password-file",
            "ks-pw.txt",
            "--yes",
            "--out",
            p,
        ],
    ),
    "watcher backup --out": ("watcher", lambda p: ["backup", "--out", p]),
    "watcher labels export": ("watcher", lambda p: ["labels", "export", p]),
    "watcher convert --out": ("watcher", lambda p: ["convert", "spend.psbt", "--to", "base64", "--out", p]),
    "watcher receive --qr": ("watcher", lambda p: ["receive", "--qr", p]),
}


def run_command(setup: Setup, name: str, path: str) -> subprocess.CompletedProcess:
    tool, argv = COMMANDS[name]
    args = argv(path)
    return setup.signer(*args) if tool == "signer" else setup.watcher(*args)


@pytest.fixture
def setup(bin_dir, home, tmp_path) -> Setup:
    return Setup(bin_dir, home, tmp_path)


def out_name(name: str) -> str:
    return "out.png" if "--qr" in name else "out.dat"


def reference_bytes(setup: Setup, name: str) -> bytes:
    """What the command writes to a new regular file (the control every special-file case is compared with)."""
    path = setup.tmp / ("ref-" + out_name(name))
    proc = run_command(setup, name, str(path))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert path.is_file() and not path.is_symlink()
    return path.read_bytes()


def comparable(name: str, data: bytes) -> bytes | int:
    """Outputs that differ run to run (a keystore's salt, a backup's time stamp) compare by size class only."""
    if "keystore" in name or "backup" in name:
        return len(data) > 0
    return data


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_write_to_a_fifo_reaches_its_reader_and_the_fifo_stays(setup, name):
    reference = reference_bytes(setup, name)
    fifo = setup.tmp / ("pipe-" + out_name(name))
    os.mkfifo(fifo)
    received = bytearray()

    def reader():
        with open(fifo, "rb") as f:  # noqa: PTH123 — `cat`'s part: read until the writer closes
            received.extend(f.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    proc = run_command(setup, name, str(fifo))
    thread.join(timeout=30)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert comparable(name, bytes(received)) == comparable(name, reference)


def test_write_to_a_fifo_read_by_cat(setup):
    """The issue's own words: `--out` to a FIFO read by the `cat` program."""
    fifo = setup.tmp / "descriptor.fifo"
    os.mkfifo(fifo)
    cat = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    proc = setup.signer("export", "--script", "wpkh", "--out", str(fifo))
    out, _ = cat.communicate(timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert out.decode().strip() == setup.vault.export("wpkh")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_write_through_a_symlink_reaches_the_target_and_the_link_stays(setup, name):
    reference = reference_bytes(setup, name)
    (setup.tmp / "elsewhere").mkdir()
    target = setup.tmp / "elsewhere" / ("target-" + out_name(name))
    target.write_bytes(b"old content\n")
    link = setup.tmp / ("link-" + out_name(name))
    link.symlink_to(os.path.relpath(target, setup.tmp))
    proc = run_command(setup, name, str(link))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert link.is_symlink(), "the link was replaced by a file"
    assert comparable(name, target.read_bytes()) == comparable(name, reference)
    # A dangling link: the target is created where the link points.
    dangling_target = setup.tmp / "elsewhere" / ("new-" + out_name(name))
    dangling = setup.tmp / ("dangling-" + out_name(name))
    dangling.symlink_to(dangling_target)
    proc = run_command(setup, name, str(dangling))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert dangling.is_symlink() and dangling_target.is_file()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_write_to_a_character_device_keeps_the_device(setup, name):
    if not IS_ROOT:
        pytest.skip("making a device node needs root (CI runs as root)")
    device = setup.tmp / ("null-" + out_name(name))
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    proc = run_command(setup, name, str(device))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert stat.S_ISCHR(os.lstat(device).st_mode), "the device node was replaced by a file"


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS if "--qr" not in n))  # --qr takes a .png/.gif name
def test_write_to_dev_null_leaves_it_a_device(setup, name):
    """The machine's own /dev/null (run as root in CI, where a rename over it would succeed and destroy it)."""
    proc = run_command(setup, name, "/dev/null")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_dev_stdout_writes_to_standard_output(setup):
    proc = setup.signer("export", "--script", "wpkh", "--out", "/dev/stdout")
    assert proc.returncode == 0, proc.stderr
    assert setup.vault.export("wpkh") in proc.stdout.decode()
    assert os.path.islink("/dev/stdout")


@pytest.mark.parametrize("kind", ["directory", "socket"])
def test_a_directory_or_socket_is_refused_with_its_name(setup, kind):
    path = setup.tmp / f"a-{kind}"
    if kind == "directory":
        path.mkdir()
    else:
        import socket  # noqa: PLC0415

        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    proc = setup.signer("export", "--script", "wpkh", "--out", str(path))
    assert proc.returncode == 6, proc.stderr
    assert f"it is a {kind}" in proc.stderr.decode()
    assert path.is_dir() if kind == "directory" else stat.S_ISSOCK(os.lstat(path).st_mode)


@pytest.mark.parametrize("name", ["watcher backup --out", "signer sign --out", "watcher labels export"])
def test_a_regular_file_is_replaced_atomically_even_when_killed(setup, name):
    """SIGKILL at spread-out moments of the write: the file holds the old content or a whole new one, never a part."""
    target = setup.tmp / "regular.dat"
    old = b"the old content, which must survive or be wholly replaced\n"
    new = None
    for attempt in range(12):
        target.write_bytes(old)
        tool, argv = COMMANDS[name]
        cmd = [str(setup.bin_dir / f"airlock-{tool}"), *argv(str(target))]
        if tool == "signer":
            cmd += ["--vault", str(setup.vault.path), "--password-file", str(setup.vault.password_file)]
        proc = subprocess.Popen(cmd, env=setup.home.env, cwd=setup.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.004 * attempt)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        content = target.read_bytes()
        if content != old:
            new = new or reference_bytes(setup, name)
            assert comparable(name, content) == comparable(name, new), f"attempt {attempt}: a partial file"
            if "backup" in name:
                json.loads(content)  # a whole backup parses
        assert not target.is_symlink() and target.is_file()
    # Control: run to completion, the new content is there whole.
    proc = run_command(setup, name, str(target))
    assert proc.returncode == 0
    assert target.read_bytes() != old


def test_a_vault_path_that_is_a_device_is_refused(bin_dir, home, tmp_path):
    """The vault keeps its atomic replace and refuses a special file instead of writing through it or reading it."""
    fifo = tmp_path / "vault.fifo"
    os.mkfifo(fifo)
    words = tmp_path / "words.txt"
    words.write_text("abandon " * 11 + "about\n")
    pw = tmp_path / "pw.txt"
    pw.write_text("pw\n")

    def signer(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(bin_dir / "airlock-signer"), *args, "--vault", str(fifo), "--password-file", str(pw)],
            capture_output=True,
            env=home.env,
            timeout=60,
        )

    restore = ["restore", "--mnemonic-file", str(words), "--network", "regtest", *KDF]
    assert signer(*restore).returncode != 0  # something is there: not replaced without --force
    forced = signer(*restore, "--force")
    assert forced.returncode == 6, forced.stderr
    assert b"it is a named pipe" in forced.stderr, forced.stderr
    info = signer("info")  # reading it would wait forever on a FIFO: refused at once instead
    assert info.returncode == 6 and b"it is a named pipe" in info.stderr, info.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # Control: a regular path restores.
    fifo = tmp_path / "vault.airlock"
    assert signer(*restore).returncode == 0
    assert signer("info").returncode == 0


def test_scripts_test_stops_at_once_on_a_machine_whose_dev_null_is_a_file(tmp_path):
    """`scripts/test` on a damaged machine: a regular file bind-mounted over /dev/null in a private mount namespace
    (the machine's own /dev/null is untouched) makes it stop before set-up, naming the device."""
    if not IS_ROOT:
        pytest.skip("a private mount namespace needs root (CI runs as root)")
    repo = Path(__file__).resolve().parents[2]
    fake = tmp_path / "null-as-a-file"
    fake.write_bytes(b"")
    script = f"mount --bind {fake} /dev/null && exec {repo}/scripts/test"
    proc = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "/dev/null is not a character device" in proc.stderr
    assert "setup:" not in proc.stdout + proc.stderr  # stopped at once, before any set-up step
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_a_wallet_database_that_is_a_pipe_is_refused(bin_dir, home):
    """The watcher's database is never a special file: one in its place is refused before SQLite opens it."""
    home.data_dir.mkdir(parents=True)
    fifo = home.data_dir / "wallet.sqlite"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [str(bin_dir / "airlock-watcher"), "wallets"], capture_output=True, env=home.env, timeout=60, cwd=home.root
    )
    assert proc.returncode != 0 and b"it is a named pipe" in proc.stderr, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # Control: the same data dir once the pipe is gone opens a new database.
    fifo.unlink()
    proc = subprocess.run(
        [str(bin_dir / "airlock-watcher"), "wallets"], capture_output=True, env=home.env, timeout=60, cwd=home.root
    )
    assert proc.returncode == 0, proc.stderr
