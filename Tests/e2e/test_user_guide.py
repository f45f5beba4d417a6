"""docs/user-guide.md, run exactly as written: the single-signature steps (sections 3-6) and the multisig steps
(section 7) against the regtest node, the Ethereum steps (section 8) against the devnet, each from a fresh home.

The commands are read from the guide itself: each fenced `sh` block after a `<!-- guide:single|multisig|eth MACHINE
-->` marker is one step, run with bash on that machine (its own directory and `AIRLOCK_VAULT`/`AIRLOCK_HOME`) inside a
pseudo-terminal, so the signer asks for its passwords, its confirmations and the backup check as it does for a user;
this test answers them (the backup check with the words init showed). The guide's variables (`NETWORK`, `NODE`,
`PAYEE`, `ETH_NODE`, `CHAIN_ID`, `TOKEN`, `ETH_PAYEE`) are set as its "Which network" and Ethereum sections say for
practice. What the guide's prose does by hand — carrying files between machines, paying the wallet — the test does
between the steps. Nothing in a command is changed: edit the guide and this test runs the edit. Not run: section 1
(the build, done by the suite) and section 2's transcripts (taking a machine offline).
"""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from pathlib import Path

from embit.psbt import PSBT
from roundtrip_helpers import Watcher, outside_address, outside_holds
from signer_psbt import Vault, psbt_from_frames, read_qr_pngs
from terminal import Answer, Hidden, run_in_pty
from test_roundtrip import node_url

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user-guide.md"
FLOW = r"<!-- guide:{flow} (\S+) -->\s*\n```sh\n(.*?)```"
WORD = re.compile(r"^\s*(\d+)\. ([a-z]+)\s*$", re.M)
ASKED = re.compile(r"word #(\d+)\?")


def guide_steps(flow: str = "multisig") -> list[tuple[str, str]]:
    """(machine, commands) of every block marked for `flow`, in the guide's order."""
    steps = re.findall(FLOW.format(flow=flow), GUIDE.read_text(), re.S)
    assert len(steps) >= 7, f"the guide's {flow} blocks are missing: {steps}"
    return steps


def guide_answers(password: str | None) -> Answer:
    """Answers as the guide's user: the password at every password prompt, yes to every [y/N] question, and at init's
    backup check the word init showed at the position asked."""

    def answer(transcript: str, pending: str) -> str | None:
        asked = ASKED.search(pending)
        if asked:
            words = dict((int(n), w) for n, w in WORD.findall(transcript))
            return words[int(asked.group(1))]
        if "New vault password:" in pending or "Repeat the password:" in pending or "Vault password:" in pending:
            assert password, f"asked for a password on a machine without a vault:\n{transcript}"
            return Hidden(password)
        return "y" if "[y/N]" in pending else None

    return answer


def run_in_terminal(commands: str, cwd: Path, env: dict, password: str | None, timeout: float = 300) -> str:
    """Runs `commands` with bash in a new pseudo-terminal (its controlling terminal), answered by `guide_answers`.
    Returns the terminal transcript; fails unless bash exits 0."""
    argv = ["bash", "-euo", "pipefail", "-c", commands]
    code, transcript = run_in_pty(argv, cwd, env, guide_answers(password), timeout)
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


class TwoMachines:
    """An offline and an online machine (a directory each), on which the doc's blocks run in a terminal with one
    signer password; `carry` copies files between them as a person carries PNGs."""

    def __init__(self, tmp_path: Path, env: dict, password: str):
        self.offline, self.online = tmp_path / "offline", tmp_path / "online"
        self.offline.mkdir()
        self.online.mkdir()
        self.env, self.password = env, password

    def on(self, machine: str, commands: str) -> str:
        return run_in_terminal(commands, self.offline if machine == "offline" else self.online, self.env, self.password)

    def carry(self, pattern: str, source: Path, target: Path) -> None:
        found = sorted(source.glob(pattern))
        assert found, f"nothing matches {pattern} in {source}"
        for path in found:
            shutil.copy(path, target / path.name)


def guide_env(home, bin_dir, **variables) -> dict:
    env = dict(home.env)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env.update(variables)
    return env


def test_user_guide_single_signature_steps(run, home, bin_dir, regtest_node, tmp_path):
    """Sections 3-6 on regtest from a fresh home: init (backup check answered), export, import, node, sync, the
    address check, receive, a payment, send, sign, broadcast; the payee holds the amount once mined."""
    node = regtest_node
    env = guide_env(home, bin_dir, NETWORK="regtest", NODE=node_url(node, "electrum"), PAYEE=outside_address())
    assert not home.vault.exists() and not home.data_dir.exists()
    machines = TwoMachines(tmp_path, env, "guide password 1")
    on, carry, offline, online = machines.on, machines.carry, machines.offline, machines.online

    steps = iter(guide_steps("single"))
    # 3. init on regtest: the words are shown, three are asked back, the vault is written.
    machine, commands = next(steps)
    assert machine == "offline" and "init" in commands
    shown = on(machine, commands)
    assert "Backup check passed." in shown and "network regtest" in shown
    # 4. export, carried to the online machine; import, node, sync, balance.
    machine, commands = next(steps)
    assert machine == "offline" and "export" in commands
    on(machine, commands)
    carry("account*.png", offline, online)
    machine, commands = next(steps)
    assert machine == "online" and "import" in commands and "sync" in commands
    shown = on(machine, commands)
    assert "now follows the node's network, regtest" in shown  # the tpub account takes the node's network
    # The address check: the signer's first address is the watcher's first.
    machine, commands = next(steps)
    assert machine == "offline" and "address --index 0" in commands
    first = re.search(r"bcrt1[0-9a-z]+", on(machine, commands)).group(0)
    machine, commands = next(steps)
    assert machine == "online" and "addresses" in commands
    assert first in on(machine, commands)
    # 5. receive; the payer pays the invoice's address; sync, balance, history.
    machine, commands = next(steps)
    assert machine == "online" and "receive" in commands
    on(machine, commands)
    assert (online / "invoice.png").exists()
    node.send_to(first, 250_000)
    node.mine(1)
    machine, commands = next(steps)
    assert machine == "online" and "history" in commands
    assert "0.0025" in on(machine, commands)
    # 6. send to $PAYEE, carried offline; sign (reviewed, asked); carried back; broadcast; the payee is paid.
    machine, commands = next(steps)
    assert machine == "online" and "send" in commands
    on(machine, commands)
    carry("spend*.png", online, offline)
    machine, commands = next(steps)
    assert machine == "offline" and "sign" in commands
    shown = on(machine, commands)
    assert env["PAYEE"] in shown and "Sign this transaction? [y/N]" in shown
    carry("signed*.png", offline, online)
    machine, commands = next(steps)
    assert machine == "online" and "broadcast" in commands
    on(machine, commands)
    node.mine(1)
    assert [amount for _, amount in outside_holds(node, env["PAYEE"])] == [100_000]
    assert next(steps, None) is None


def test_user_guide_ethereum_steps(run, home, bin_dir, tmp_path):
    """Section 8 on the devnet from a fresh home: a vault made as section 3 makes it (by the guide's own init
    command), the Ethereum account exported and imported for the devnet's chain id, the token followed, the faucet
    paying the invoice's address, an ETH and an ATT send signed through PNGs and broadcast, history in token units."""
    from test_watcher_eth import start_devnet

    proc, devnet = start_devnet()
    try:
        payee = "0x" + "47" * 20
        env = guide_env(
            home, bin_dir, NETWORK="regtest", ETH_NODE=f"eth+http://127.0.0.1:{devnet['rpc']}",
            CHAIN_ID=str(devnet["chain_id"]), TOKEN=devnet["token"], ETH_PAYEE=payee,
        )  # fmt: skip
        machines = TwoMachines(tmp_path, env, "guide password 2")
        on, carry, offline, online = machines.on, machines.carry, machines.offline, machines.online

        _, init = guide_steps("single")[0]
        on("offline", init)
        steps = iter(guide_steps("eth"))
        machine, commands = next(steps)
        assert machine == "offline" and "export --chain eth" in commands
        on(machine, commands)
        carry("eth-account*.png", offline, online)
        machine, commands = next(steps)
        assert machine == "online" and "import" in commands and "token add" in commands
        on(machine, commands)
        address = run("airlock-watcher", "receive", "--wallet", "eth", "--json", check=True)
        address = json.loads(address.stdout)["address"]
        rpc(devnet, "dev_faucet", [address, hex(10**18)])
        rpc(devnet, "dev_mint", [address, hex(5_000_000)])
        machine, commands = next(steps)
        assert machine == "online" and "balance" in commands
        shown = on(machine, commands)
        assert "1.000000000000000000 ETH" in shown and "5.000000 ATT" in shown
        machine, commands = next(steps)
        assert machine == "online" and "--amount 0.01eth" in commands and "inspect" in commands
        shown = on(machine, commands)
        assert f"chain: {devnet['chain_id']}" in shown and "0.01" in shown
        carry("eth-request*.png", online, offline)
        machine, commands = next(steps)
        assert machine == "offline" and "sign eth-request" in commands
        on(machine, commands)
        carry("eth-signature*.png", offline, online)
        machine, commands = next(steps)
        assert machine == "online" and "broadcast" in commands and "--token ATT" in commands
        on(machine, commands)
        carry("att-request*.png", online, offline)
        machine, commands = next(steps)
        assert machine == "offline" and "sign att-request" in commands
        on(machine, commands)
        carry("att-signature*.png", offline, online)
        machine, commands = next(steps)
        assert machine == "online" and "history" in commands
        shown = on(machine, commands)
        assert "1.500000 ATT" in shown and "mined" in shown
        assert next(steps, None) is None
        assert int(rpc(devnet, "eth_getBalance", [payee, "latest"]), 16) == 10**16
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def rpc(devnet, method, params):
    request = urllib.request.Request(
        f"http://127.0.0.1:{devnet['rpc']}",
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        reply = json.loads(answer.read())
    assert "error" not in reply, reply
    return reply["result"]
