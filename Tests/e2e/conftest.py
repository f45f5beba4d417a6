"""Shared fixtures for the end-to-end suite: the built binaries, the test vectors, temporary homes.

Tests run the executables the way a user does. The binaries are built once per session (`swift build`), the vectors
are read from Tests/Vectors (copied from their upstreams, provenance in its README), and each test gets a temporary HOME and data dirs.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _bin_path() -> Path:
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


# --- the machine's special files (issue 34) -------------------------------------------------------------------------
# `--out /dev/null` run as root once replaced /dev/null with a regular file, and a later tmux test failed far from the
# cause. After every test these must still be what they are; the first test after which one is not is named, and the
# device is put back so the rest of the run is not damaged too.
_DEVICES = {"/dev/null": (1, 3), "/dev/zero": (1, 5), "/dev/urandom": (1, 9)}


def special_files_damage() -> list[str]:
    """What is wrong with /dev/null, /dev/zero, /dev/urandom (character devices) and /dev/stdout (a symlink)."""
    damage = []
    for path in _DEVICES:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            damage.append(f"{path} is missing")
            continue
        if not stat.S_ISCHR(mode):
            damage.append(f"{path} is no longer a character device")
    if not os.path.islink("/dev/stdout"):
        damage.append("/dev/stdout is no longer a symlink")
    return damage


def _repair(damage: list[str]) -> None:
    if os.geteuid() != 0:
        return
    for path, (major, minor) in _DEVICES.items():
        if any(d.startswith(path + " ") for d in damage):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
            os.chmod(path, 0o666)
    if any(d.startswith("/dev/stdout") for d in damage):
        with contextlib.suppress(FileNotFoundError):
            os.unlink("/dev/stdout")
        os.symlink("/proc/self/fd/1", "/dev/stdout")


@pytest.fixture(autouse=True)
def special_files_intact(request):
    """Fails the test after which a machine special file was replaced, naming it (and repairs it when root)."""
    yield
    damage = special_files_damage()
    if damage:
        _repair(damage)
        pytest.fail(f"{request.node.nodeid} damaged the machine's special files: {'; '.join(damage)}", pytrace=False)


@pytest.fixture(scope="session")
def bin_dir() -> Path:
    """The directory of the built executables; builds them once per test session.

    `AIRLOCK_BIN_DIR` points at binaries built elsewhere instead (no build is run then)."""
    if os.environ.get("AIRLOCK_BIN_DIR"):
        path = Path(os.environ["AIRLOCK_BIN_DIR"])
    else:
        subprocess.run(["swift", "build"], cwd=REPO, check=True)
        path = _bin_path()
    for name in ("airlock-signer", "airlock-watcher"):
        assert (path / name).exists(), f"{name} was not built in {path}"
    return path


@pytest.fixture(scope="session")
def vectors() -> Path:
    """Tests/Vectors: the public vectors copied into the repository."""
    path = REPO / "Tests" / "Vectors"
    assert path.is_dir(), f"test vectors not found at {path}"
    return path


@dataclass
class Home:
    """A temporary user: HOME, the signer's vault path, the watcher's data dir, and the environment to run with."""

    root: Path
    env: dict

    @property
    def vault(self) -> Path:
        return Path(self.env["AIRLOCK_VAULT"])

    @property
    def data_dir(self) -> Path:
        return Path(self.env["AIRLOCK_HOME"])


@pytest.fixture
def home(tmp_path: Path) -> Home:
    """A fresh temporary home for one test. The air-gap guard is relaxed because both sides run on one machine here."""
    env = dict(os.environ)
    env["HOME"] = str(tmp_path / "home")
    env["AIRLOCK_VAULT"] = str(tmp_path / "home" / ".airlock" / "vault.airlock")
    env["AIRLOCK_HOME"] = str(tmp_path / "home" / ".local" / "share" / "airlock")
    env["AIRLOCK_ALLOW_NETWORK"] = "1"
    (tmp_path / "home").mkdir()
    return Home(root=tmp_path, env=env)


@pytest.fixture
def run(bin_dir: Path, home: Home):
    """Runs `airlock-signer` / `airlock-watcher` with the temporary home; returns the CompletedProcess."""

    def _run(tool: str, *args: str, input: bytes | str | None = None, check: bool = False, timeout: float = 300):
        if isinstance(input, str):
            input = input.encode()
        proc = subprocess.run(
            [str(bin_dir / tool), *args],
            input=input,
            capture_output=True,
            env=home.env,
            cwd=home.root,
            timeout=timeout,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"{tool} {' '.join(args)} exited {proc.returncode}\nstdout: {proc.stdout.decode(errors='replace')}"
                f"\nstderr: {proc.stderr.decode(errors='replace')}"
            )
        return proc

    return _run


# --- regtest node fixtures (the regtest package's regtest/testing.py, documented in docs/regtest.md) -------------
from regtest.testing import fresh_regtest_node, regtest_node  # noqa: E402,F401
# --- end of regtest node fixtures --------------------------------------------------------------------------------
