"""The README's quick start, run as written: each fenced `sh` block after a `<!-- quickstart:btc|eth MACHINE -->` marker
is one step, run with bash in a pseudo-terminal on that machine (its own directory), so the signer asks for its
password, its confirmation and the backup check as it does for a user (answered here, as test_user_guide does). The
README's variables are set for practice: `NETWORK=regtest` and `NODE` the regtest node's Electrum port, the devnet's
`ETH_NODE`, `CHAIN_ID` and token. Between the steps the test does what the prose says a person does: carry the PNGs
across and pay the invoice. Nothing in a command is changed: edit the README and this test runs the edit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from roundtrip_helpers import outside_address, outside_holds
from test_roundtrip import node_url
from test_user_guide import TwoMachines, guide_env, rpc

README = Path(__file__).resolve().parents[2] / "README.md"


def quickstart_steps(chain: str) -> list[tuple[str, str]]:
    steps = re.findall(rf"<!-- quickstart:{chain} (\S+) -->\s*\n```sh\n(.*?)```", README.read_text(), re.S)
    assert len(steps) >= 4, f"the README's {chain} quick start blocks are missing: {steps}"
    return steps


def test_readme_bitcoin_quick_start(run, home, bin_dir, regtest_node, tmp_path):
    node = regtest_node
    payee = outside_address()
    env = guide_env(home, bin_dir, NETWORK="regtest", NODE=node_url(node, "electrum"), PAYEE=payee)
    m = TwoMachines(tmp_path, env, "readme password 1")
    steps = iter(quickstart_steps("btc"))
    machine, commands = next(steps)
    assert machine == "offline" and "init" in commands and "export" in commands
    shown = m.on(machine, commands)
    assert "Backup check passed." in shown
    assert re.search(r"wrote account(-01of\d+)?\.png", shown), shown  # the names written are printed
    m.carry("account*.png", m.offline, m.online)
    machine, commands = next(steps)
    assert machine == "online" and "import" in commands and "receive" in commands
    m.on(machine, commands)
    assert (m.online / "invoice.png").exists()
    # The payer pays the invoice's address (the one receive still hands out until it is used).
    address = json.loads(run("airlock-watcher", "receive", "--json", check=True).stdout)["address"]
    node.send_to(address, 250_000)
    node.mine(1)
    machine, commands = next(steps)
    assert machine == "online" and "send" in commands
    shown = m.on(machine, commands)
    m.carry("spend*.png", m.online, m.offline)
    machine, commands = next(steps)
    assert machine == "offline" and "sign" in commands
    shown = m.on(machine, commands)
    assert payee in shown and "Sign this transaction? [y/N]" in shown
    m.carry("signed*.png", m.offline, m.online)
    machine, commands = next(steps)
    assert machine == "online" and "broadcast" in commands
    m.on(machine, commands)
    node.mine(1)
    assert [amount for _, amount in outside_holds(node, payee)] == [100_000]
    assert next(steps, None) is None


def test_readme_ethereum_quick_start(run, home, bin_dir, tmp_path):
    from test_watcher_eth import start_devnet  # noqa: PLC0415

    proc, devnet = start_devnet()
    try:
        payee = "0x" + "52" * 20
        env = guide_env(
            home, bin_dir, NETWORK="regtest", ETH_NODE=f"eth+http://127.0.0.1:{devnet['rpc']}",
            CHAIN_ID=str(devnet["chain_id"]), TOKEN=devnet["token"], ETH_PAYEE=payee,
        )  # fmt: skip
        m = TwoMachines(tmp_path, env, "readme password 2")
        # The vault is made by the README's own Bitcoin init line (the same seed serves Ethereum).
        _, first = quickstart_steps("btc")[0]
        m.on("offline", next(line for line in first.splitlines() if " init " in line))
        steps = iter(quickstart_steps("eth"))
        machine, commands = next(steps)
        assert machine == "offline" and "export --chain eth" in commands
        m.on(machine, commands)
        m.carry("eth-account*.png", m.offline, m.online)
        machine, commands = next(steps)
        assert machine == "online" and "import" in commands and "token add" in commands
        m.on(machine, commands)
        address = json.loads(run("airlock-watcher", "receive", "--wallet", "eth", "--json", check=True).stdout)
        rpc(devnet, "dev_faucet", [address["address"], hex(10**18)])
        rpc(devnet, "dev_mint", [address["address"], hex(5_000_000)])
        machine, commands = next(steps)
        assert machine == "online" and "send" in commands
        shown = m.on(machine, commands)
        assert "5.000000 ATT" in shown, shown
        m.carry("request*.png", m.online, m.offline)
        machine, commands = next(steps)
        assert machine == "offline" and "sign" in commands
        shown = m.on(machine, commands)
        assert "Sign this?" in shown or "Sign this" in shown
        m.carry("signature*.png", m.offline, m.online)
        machine, commands = next(steps)
        assert machine == "online" and "broadcast" in commands
        m.on(machine, commands)
        assert next(steps, None) is None
        # The payee holds 1.5 ATT (6 decimals) by the token contract's own balanceOf.
        call = {"to": devnet["token"], "data": "0x70a08231" + "00" * 12 + payee[2:]}
        assert int(rpc(devnet, "eth_call", [call, "latest"]), 16) == 1_500_000
    finally:
        proc.terminate()
        proc.wait(timeout=30)
