"""docs/user-guide.md's multisig steps, run exactly as written against the regtest node.

The commands are read from the guide itself: each fenced `sh` block after a `<!-- guide:multisig MACHINE -->` marker
is one step, run with bash on that machine (its own directory and `AIRLOCK_VAULT`/`AIRLOCK_HOME`) inside a pseudo-
terminal, so the signer asks for its password and its confirmations as it does for a user; this test answers them.
What the guide's prose does by hand — carrying files between machines, funding the wallet — the test does between the
steps. Nothing in a command is changed: edit the guide and this test runs the edit.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import shutil
import subprocess
import termios
import time
from pathlib import Path

from embit.psbt import PSBT
from roundtrip_helpers import Watcher, outside_address, outside_holds
from signer_psbt import Vault, psbt_from_frames, read_qr_pngs
from test_roundtrip import node_url

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user-guide.md"
MARKER = re.compile(r"<!-- guide:multisig (\S+) -->\s*\n```sh\n(.*?)```", re.S)


def guide_steps() -> list[tuple[str, str]]:
    """(machine, commands) of every marked block, in the guide's order."""
    steps = MARKER.findall(GUIDE.read_text())
    assert len(steps) >= 7, f"the guide's multisig blocks are missing: {steps}"
    return steps


def run_in_terminal(commands: str, cwd: Path, env: dict, password: str | None, timeout: float = 300) -> str:
    """Runs `commands` with bash in a new pseudo-terminal (its controlling terminal); answers the password prompt and
    every [y/N] question with yes. Returns the terminal transcript; fails unless bash exits 0."""
    master, slave = os.openpty()

    def controlling_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", commands],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=env,
        start_new_session=True,
        preexec_fn=controlling_terminal,
    )
    os.close(slave)
    transcript, answered = "", 0
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, f"timed out:\n{transcript}"
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536).decode(errors="replace")
            except OSError:  # EIO: every process holding the terminal has ended
                break
            if not chunk:
                break
            transcript += chunk
            pending = transcript[answered:]
            if "Vault password:" in pending:
                assert password, f"asked for a password on a machine without a vault:\n{transcript}"
                # The signer turns echo off (discarding input typed before) after the prompt: type once it has.
                while termios.tcgetattr(master)[3] & termios.ECHO:
                    assert time.monotonic() < deadline, f"echo never went off:\n{transcript}"
                    time.sleep(0.05)
                os.write(master, (password + "\n").encode())
                answered = len(transcript)
            elif "[y/N]" in pending:
                os.write(master, b"y\n")
                answered = len(transcript)
        elif proc.poll() is not None:
            break
    os.close(master)
    code = proc.wait(timeout=30)
    assert code == 0, f"`{commands.strip()}` exited {code}:\n{transcript}"
    return transcript


def test_user_guide_multisig_steps(run, home, bin_dir, regtest_node, tmp_path):
    node = regtest_node
    env = dict(home.env)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env["NETWORK"] = "regtest"
    env["PAYEE"] = payee = outside_address()
    vaults = [Vault(bin_dir, home.env, home.root, f"signer-{n}") for n in (1, 2, 3)]
    machines: dict[str, tuple[Path, dict, str | None]] = {}
    for n, vault in enumerate(vaults, 1):
        machine_env = dict(env, AIRLOCK_VAULT=str(vault.path))
        machines[f"signer-{n}"] = (tmp_path / f"signer-{n}", machine_env, vault.password_file.read_text().strip())
    machines["coordinator"] = (tmp_path / "coordinator", env, None)
    machines["watcher"] = (tmp_path / "watcher", env, None)  # AIRLOCK_HOME is the test home's watcher data dir
    for directory, _, _ in machines.values():
        directory.mkdir()

    def carry(name: str, source: str, target: str, as_name: str | None = None):
        for path in sorted(machines[source][0].glob(name)):
            shutil.copy(path, machines[target][0] / (as_name or path.name))

    def on(machine: str, commands: str) -> str:
        directory, machine_env, password = machines[machine]
        return run_in_terminal(commands, directory, machine_env, password)

    steps = iter(guide_steps())
    # 1. Each signer exports its cosigner key; the coordinator gets them as key1.txt … key3.txt.
    machine, commands = next(steps)
    assert machine == "each-signer" and "export --script wsh-multi" in commands
    for n in (1, 2, 3):
        on(f"signer-{n}", commands)
        carry("cosigner.txt", f"signer-{n}", "coordinator", f"key{n}.txt")
    # 2. The descriptor, carried to every signer and to the watcher.
    machine, commands = next(steps)
    assert machine == "coordinator"
    on("coordinator", commands)
    for target in ("signer-1", "signer-2", "signer-3", "watcher"):
        carry("wallet.txt", "coordinator", target)
    # 3. Each signer registers it, after the policy is shown and confirmed.
    machine, commands = next(steps)
    assert machine == "each-signer" and "multisig register" in commands
    for n, vault in enumerate(vaults, 1):
        shown = on(f"signer-{n}", commands)
        assert "policy: 2 of 3, script wsh" in shown and "<-- THIS VAULT" in shown
        assert f"[{vault.fingerprint.hex()}] m/48h/1h/0h/2h   <-- THIS VAULT" in shown
        assert "Register this wallet? [y/N]" in shown
        assert vault.run("multisig", "list", "--json", check=True).stdout.count(b'"family"') == 1
    # 4. The watcher imports it; funding it is the guide's section 5 (and its node section 4).
    machine, commands = next(steps)
    assert machine == "watcher" and "import wallet.txt" in commands
    on("watcher", commands)
    watcher = Watcher(run, node)
    watcher("node", "set", node_url(node, "electrum"))
    for _ in range(2):
        node.send_to(watcher.json("receive", "--wallet", "family", "--new")["address"], 150_000)
    node.mine(1)
    # 5. Sync and send: the unsigned PSBT as QR frames.
    machine, commands = next(steps)
    assert machine == "watcher" and "send" in commands
    on("watcher", commands)
    carry("unsigned*.png", "watcher", "signer-1")
    # 6. Signer 1 signs: the whole PSBT, since signer 2 still has to sign.
    machine, commands = next(steps)
    assert machine == "signer-1"
    shown = on("signer-1", commands)
    assert "multisig 'family' 2 of 3 wsh" in shown and "Sign this transaction? [y/N]" in shown
    first = sorted(machines["signer-1"][0].glob("signed-1*.png"))
    whole = PSBT.parse(psbt_from_frames(read_qr_pngs(first)))
    assert all(i.witness_script is not None and len(i.bip32_derivations) == 3 for i in whole.inputs)
    assert all(len(i.partial_sigs) == 1 for i in whole.inputs)
    carry("signed-1*.png", "signer-1", "signer-2")
    # 7. Signer 2 reads signer 1's frames, reviews and signs: complete, so trimmed.
    machine, commands = next(steps)
    assert machine == "signer-2"
    shown = on("signer-2", commands)
    assert "multisig 'family' 2 of 3 wsh" in shown and "complete" in shown
    second = sorted(machines["signer-2"][0].glob("signed-2*.png"))
    trimmed = PSBT.parse(psbt_from_frames(read_qr_pngs(second)))
    assert all(i.witness_script is None and len(i.partial_sigs) == 2 for i in trimmed.inputs)
    carry("signed-2*.png", "signer-2", "watcher")
    # 8. The watcher broadcasts; the payee holds 0.001 BTC once mined.
    machine, commands = next(steps)
    assert machine == "watcher" and "broadcast" in commands
    on("watcher", commands)
    node.mine(1)
    held = outside_holds(node, payee)
    assert [amount for _, amount in held] == [100_000], held
    assert next(steps, None) is None
