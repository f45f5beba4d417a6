"""Golden files of the CLI contract (docs/architecture.md section 2, rule R9), as argument-parser pins its own help.

- Tests/Golden/help/TOOL[-SUB…].txt: the `--help` text of every command and subcommand of both executables.
- Tests/Golden/json/TOOL[-SUB…][--VARIANT].json: the *shape* of every command's `--json` output (each key with the
  JSON types it held: "string", "number", "boolean", "null", joined with "|" when a list's elements differ), from a
  real run of every command against the regtest node, so txids, paths and amounts do not make it flaky.

The command tree comes from `--experimental-dump-help` (cli_tree.py): a new command without a golden help file, or a
new command taking --json without a golden JSON run, fails here, as does a golden file of a command that is gone.

To rewrite the files after an intended change, run with AIRLOCK_UPDATE_GOLDEN=1 and review the diff:

    AIRLOCK_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q Tests/e2e/test_cli_golden.py
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_tree import GOLDEN, commands, help_env, update_golden
from embit.descriptor import Descriptor
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from roundtrip_helpers import outside_address
from serve_helpers import start_serve
from signer_psbt import KDF, Coin, Vault, embit_psbt, multisig_descriptor
from test_chance_multisig import offline_spend
from test_eth_signer import sign_request


def _compare(path: Path, actual: str, what: str) -> None:
    if update_golden():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    assert path.exists(), (
        f"{what} has no golden file {path.relative_to(GOLDEN.parents[1])}; run with "
        "AIRLOCK_UPDATE_GOLDEN=1 to write it (see this file's docstring)"
    )
    expected = path.read_text()
    assert actual == expected, f"{what} differs from {path.name}; if intended, rewrite with AIRLOCK_UPDATE_GOLDEN=1"


def _stale(directory: Path, expected: set[str]) -> list[str]:
    stale = sorted(p.name for p in directory.glob("*") if p.name not in expected)
    if update_golden():
        for name in stale:
            (directory / name).unlink()
        return []
    return stale


# --- help ----------------------------------------------------------------------------------------------------------


def test_every_command_has_a_golden_help_text(bin_dir):
    tree = commands(bin_dir)
    assert len(tree) > 30, "the command tree from --experimental-dump-help looks truncated"
    for command in tree:
        proc = subprocess.run(
            [str(bin_dir / command.tool), *command.argv, "--help"], capture_output=True, text=True, env=help_env()
        )
        assert proc.returncode == 0, f"{command.name} --help exited {proc.returncode}"
        assert proc.stderr == ""
        _compare(
            GOLDEN / "help" / f"{command.name}.txt", proc.stdout, f"`{' '.join([command.tool, *command.argv])} --help`"
        )
    assert _stale(GOLDEN / "help", {f"{c.name}.txt" for c in tree}) == [], "golden help files of removed commands"


def test_every_command_help_has_examples(bin_dir):
    for command in commands(bin_dir):
        text = subprocess.run(
            [str(bin_dir / command.tool), *command.argv, "--help"], capture_output=True, text=True, env=help_env()
        ).stdout
        assert "Example" in text, f"`{command.tool} {' '.join(command.argv)} --help` has no examples"
        examples = [line.split() for line in text.split("Example", 1)[1].splitlines()]
        assert any(words[:1] == [command.tool] and all(w in words for w in command.argv) for words in examples), (
            f"no example of {command.name} runs the command itself"
        )


# --- JSON shapes ---------------------------------------------------------------------------------------------------


def _merge(a, b):
    """The shape of two values of one place: dicts key by key (a key missing on one side is "absent"), types joined."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merge(a.get(k, "absent"), b.get(k, "absent")) for k in sorted(a.keys() | b.keys())}
    if isinstance(a, list) and isinstance(b, list):
        if not a or not b:
            return a or b
        return [_merge(a[0], b[0])]
    if a == b:
        return a
    parts = set()
    for x in (a, b):
        parts |= set(x.split("|")) if isinstance(x, str) else {json.dumps(x, sort_keys=True)}
    return "|".join(sorted(parts))


def shape(value):
    """The key structure of a JSON value with the type of each leaf; a list shows the merged shape of its elements."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        out = []
        for element in value:
            out = [_merge(out[0], shape(element))] if out else [shape(element)]
        return out
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def test_shape_merges_elements_and_names_types():
    """Control for the shape function the JSON goldens rely on."""
    assert shape({"b": [1, None], "a": "x", "c": [{"k": 1}, {"k": None, "n": True}], "d": []}) == {
        "a": "string",
        "b": ["null|number"],
        "c": [{"k": "null|number", "n": "absent|boolean"}],
        "d": [],
    }


class Runs:
    """Runs commands with --json and keeps each output under its golden name."""

    def __init__(self, bin_dir: Path, env: dict, root: Path):
        self.bin_dir, self.env, self.root = bin_dir, env, root
        self.outputs: dict[str, object] = {}

    def __call__(self, golden: str, tool: str, *args, input: bytes | str | None = None, extra_env=None):
        if isinstance(input, str):
            input = input.encode()
        env = dict(self.env, **(extra_env or {}))
        proc = subprocess.run(
            [str(self.bin_dir / tool), *map(str, args), "--json"],
            input=input,
            capture_output=True,
            env=env,
            cwd=self.root,
            timeout=300,
        )
        assert proc.returncode == 0, f"{golden}: exited {proc.returncode}\n{proc.stderr.decode(errors='replace')}"
        value = json.loads(proc.stdout)
        assert golden not in self.outputs
        self.outputs[golden] = value
        return value


def _backup_verify(bin_dir: Path, vault: Vault) -> dict:
    """`backup verify --json`, answering the word prompts (stderr) with the vault's words (stdin)."""
    words = vault.mnemonic.split()
    proc = subprocess.Popen(
        [
            str(bin_dir / "airlock-signer"),
            "backup",
            "verify",
            "--json",
            "--vault",
            str(vault.path),
            "--password-file",
            str(vault.password_file),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=vault.env,
        text=True,
    )
    for line in proc.stderr:
        if line.startswith("word #"):
            proc.stdin.write(words[int(line[6:].split("?")[0]) - 1] + "\n")
            proc.stdin.flush()
    out = proc.stdout.read()
    assert proc.wait(timeout=60) == 0
    return json.loads(out)


def _miniscript_runs(runs, signer, watcher, root: Path, node, keys: list[str]) -> None:
    desc = "wsh(thresh(2,pk({}),s:pk({}),s:pk({}),sln:older(12)))".format(*(k + "/<0;1>/*" for k in keys))
    signer(
        "airlock-signer-multisig-register--miniscript",
        "multisig",
        "register",
        "-",
        "--name",
        "heirs",
        "--yes",
        "--cosigner",
        keys[1][1:9] + "=Bob",
        input=desc,
    )
    runs(
        "airlock-watcher-import--miniscript",
        "airlock-watcher",
        "import",
        "-",
        "--name",
        "heirs",
        "--network",
        "regtest",
        input=desc,
    )
    address = watcher("airlock-watcher-receive--miniscript", "--wallet", "heirs", "receive", "--new")["address"]
    node.send_to(address, 300_000)
    node.mine(1)
    subprocess.run(
        [str(runs.bin_dir / "airlock-watcher"), "--wallet", "heirs", "sync"],
        env=runs.env,
        check=True,
        capture_output=True,
    )
    recovery = root / "heirs.psbt"
    watcher(
        "airlock-watcher-send--recovery", "--wallet", "heirs", "send", "--to", outside_address(), "--max",
        "--fee-rate", "2", "--recovery", "--out", recovery,
    )  # fmt: skip
    signer("airlock-signer-sign--miniscript", "sign", recovery, "--yes", "--full", "--out", root / "heirs1.psbt")


def _multisig_runs(runs, signer, watcher, root: Path, desc: str) -> None:
    d = Descriptor.from_string(desc)
    funding = Transaction(
        version=2,
        vin=[TransactionInput(bytes(range(32)), 0)],
        vout=[TransactionOutput(500_000, d.derive(0, branch_index=0).script_pubkey())],
    )
    psbt = embit_psbt(desc, [Coin(funding, 0, 0)], [(outside_address(), 200_000)], change=(1, 299_000))
    (root / "team.psbt").write_bytes(psbt.serialize())
    signer("airlock-signer-sign--multisig", "sign", root / "team.psbt", "--yes", "--full", "--out", root / "team1.psbt")
    runs("airlock-signer-inspect--multisig-psbt", "airlock-signer", "inspect", root / "team1.psbt")
    runs(
        "airlock-watcher-import--multisig",
        "airlock-watcher",
        "import",
        "-",
        "--name",
        "team",
        "--network",
        "regtest",
        input=desc,
    )
    # The funded address is the wallet's first receive address (so the input shows as the wallet's own).
    receive = [str(runs.bin_dir / "airlock-watcher"), "--wallet", "team", "receive", "--new"]
    subprocess.run(receive, env=runs.env, cwd=root, check=True, capture_output=True)
    watcher("airlock-watcher-inspect--multisig", "--wallet", "team", "inspect", root / "team1.psbt")


def test_every_json_output_has_a_golden_shape(bin_dir, home, regtest_node, vectors):
    node, root = regtest_node, home.root
    runs = Runs(bin_dir, home.env, root)
    a, b, c = (Vault(bin_dir, home.env, root, name) for name in ("a", "b", "c"))

    def signer(golden, *args, vault=a, input=None):
        return runs(
            golden, "airlock-signer", *args, "--vault", vault.path, "--password-file", vault.password_file, input=input
        )

    def watcher(golden, *args, input=None):
        return runs(golden, "airlock-watcher", *args, input=input)

    # the signer
    words = root / "words.txt"
    words.write_text(a.mnemonic + "\n")
    signer("airlock-signer-restore", "restore", "--mnemonic-file", words, "--network", "regtest", "--force", *KDF)
    made = root / "made.airlock"
    runs(
        "airlock-signer-init",
        "airlock-signer",
        "init",
        "--network",
        "regtest",
        "--words",
        "12",
        "--skip-backup-check",
        "--show-secret",
        *KDF,
        "--vault",
        made,
        "--password-file",
        a.password_file,
    )
    new_password = root / "new-pw.txt"
    new_password.write_text("new password\n")
    runs(
        "airlock-signer-passwd",
        "airlock-signer",
        "passwd",
        "--vault",
        made,
        "--password-file",
        a.password_file,
        "--new-password-file",
        new_password,
    )
    keystore_password = root / "keystore-pw.txt"
    keystore_password.write_text("keystore\n")
    signer(
        "airlock-signer-key-export",
        "key",
        "export",
        "--chain",
        "eth",
        "--kdf",
        "pbkdf2",
        "--keystore-password-file",
        keystore_password,
        "--yes",
    )
    hex_key = root / "key.hex"
    hex_key.write_text("0x" + "11" * 32 + "\n")
    signer("airlock-signer-key-import", "key", "import", hex_key, "--chain", "eth", "--label", "golden")
    signer("airlock-signer-key-list", "key", "list")
    token = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
    signer(
        "airlock-signer-token-add",
        "token",
        "add",
        token,
        "--chain-id",
        "1",
        "--symbol",
        "ATT",
        "--decimals",
        "6",
        "--yes",
    )
    signer("airlock-signer-token-list", "token", "list")
    signer("airlock-signer-token-remove", "token", "remove", token)
    aave = vectors / "erc7730" / "registry" / "registry" / "aave" / "calldata-lpv3.json"
    signer("airlock-signer-clear-signing-import", "clear-signing", "import", aave, "--yes")
    signer("airlock-signer-clear-signing-list", "clear-signing", "list")
    signer("airlock-signer-clear-signing-remove", "clear-signing", "remove", "1")
    signer("airlock-signer-info", "info")
    descriptor = signer("airlock-signer-export", "export", "--script", "wpkh")["data"]
    signer("airlock-signer-address", "address", "--index", "0")
    keys = [v.export("wsh-multi") for v in (a, b, c)]
    signer(
        "airlock-signer-multisig-register",
        "multisig",
        "register",
        "-",
        "--name",
        "team",
        "--yes",
        input=multisig_descriptor(keys),
    )
    signer("airlock-signer-multisig-list", "multisig", "list")
    signed = signer("airlock-signer-message-sign", "message", "sign", "--index", "0", "--message", "golden", "--yes")
    proof = ("--address", signed["address"], "--message", "golden", "--signature", signed["signature"])
    runs("airlock-signer-message-verify", "airlock-signer", "message", "verify", *proof)
    runs("airlock-watcher-message-verify", "airlock-watcher", "message", "verify", *proof)
    runs("airlock-signer-selftest", "airlock-signer", "selftest")
    signer("airlock-signer-backup-show", "backup", "show", "--show-secret")
    runs.outputs["airlock-signer-backup-verify"] = _backup_verify(bin_dir, a)
    signer(
        "airlock-signer-backup-slip39",
        "backup",
        "slip39",
        "--groups",
        "1of2:2of3,1of1",
        "--show-secret",
        "--skip-backup-check",
    )
    slip39_vault = root / "slip39.airlock"
    shares = runs(
        "airlock-signer-init--slip39",
        "airlock-signer",
        "init",
        "--slip39",
        "2of3",
        "--network",
        "regtest",
        "--skip-backup-check",
        "--show-secret",
        *KDF,
        "--vault",
        slip39_vault,
        "--password-file",
        a.password_file,
    )
    shares_file = root / "shares.txt"
    shares_file.write_text("\n".join(shares["groups"][0]["shares"][:2]) + "\n")
    runs(
        "airlock-signer-restore--slip39",
        "airlock-signer",
        "restore",
        "--slip39",
        "--shares-file",
        shares_file,
        "--network",
        "regtest",
        "--force",
        *KDF,
        "--vault",
        slip39_vault,
        "--password-file",
        a.password_file,
    )
    runs("airlock-signer-inspect--descriptor", "airlock-signer", "inspect", "-", input=descriptor)
    runs("airlock-signer-inspect--address", "airlock-signer", "inspect", "-", input=outside_address())

    # the watcher, on the node's Electrum server
    watcher("airlock-watcher-import", "import", "-", "--name", "w", "--network", "regtest", input=descriptor)
    watcher("airlock-watcher-node-set", "node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    watcher("airlock-watcher-node-show", "node", "show")
    watcher("airlock-watcher-node-test", "node", "test")
    first = watcher("airlock-watcher-receive", "receive", "--amount", "0.001btc", "--label", "golden")["address"]
    node.send_to(first, 300_000)
    node.send_to(first, 200_000)
    node.mine(1)
    watcher("airlock-watcher-sync", "sync")
    watcher("airlock-watcher-balance", "balance")
    watcher("airlock-watcher-history", "history")
    coin = watcher("airlock-watcher-utxos-list", "utxos", "list")[0]["outpoint"]
    watcher("airlock-watcher-utxos-freeze", "utxos", "freeze", coin)
    watcher("airlock-watcher-utxos-unfreeze", "utxos", "unfreeze", coin)
    watcher("airlock-watcher-addresses", "addresses")
    watcher("airlock-watcher-wallets-list", "wallets", "list")
    labels = root / "labels.jsonl"
    labels.write_text(json.dumps({"type": "addr", "ref": first, "label": "first"}) + "\n")
    watcher("airlock-watcher-labels-import", "labels", "import", labels)
    watcher("airlock-watcher-labels-export", "labels", "export", root / "out.jsonl")
    watcher("airlock-watcher-backup", "backup", "--out", root / "backup.json")
    watcher("airlock-watcher-restore", "--data-dir", root / "restored", "restore", root / "backup.json")
    payee = outside_address()
    watcher(
        "airlock-watcher-send--dry-run", "send", "--to", payee, "--amount", "100000sat", "--fee-rate", "2", "--dry-run"
    )
    watcher(
        "airlock-watcher-send",
        "send",
        "--to",
        payee,
        "--amount",
        "100000sat",
        "--fee-rate",
        "2",
        "--out",
        root / "unsigned.psbt",
    )

    # a silent payment (issue 31): the dry run's output named by address; a signer holding one of two inputs
    _silent_payment_runs(signer, watcher, root)

    # the signer signs; the watcher combines, finalizes, broadcasts and bumps
    runs("airlock-signer-inspect--psbt", "airlock-signer", "inspect", root / "unsigned.psbt")
    watcher("airlock-watcher-inspect", "inspect", root / "unsigned.psbt")
    watcher("airlock-watcher-convert", "convert", root / "unsigned.psbt", "--to", "bbqr", "--psbt-version", "2")
    signer("airlock-signer-sign", "sign", root / "unsigned.psbt", "--yes", "--out", root / "signed.psbt")
    _, eth_request = sign_request(vectors, b"golden", 3, 1)
    signer("airlock-signer-sign--eth-stdin", "sign", "-", "--yes", input=eth_request)
    signer("airlock-signer-audit", "audit")
    signer("airlock-signer-audit--verify", "audit", "--verify")
    # a Chance multisig: text of a registered sh(sortedmulti) wallet (docs/architecture.md section 3)
    legacy = "sh(sortedmulti(2," + ",".join(k + "/<0;1>/*" for k in keys) + "))"
    subprocess.run(
        [str(bin_dir / "airlock-signer"), "multisig", "register", "-", "--name", "legacy", "--yes"]
        + ["--vault", str(a.path), "--password-file", str(a.password_file)],
        input=legacy.encode(),
        env=home.env,
        check=True,
        capture_output=True,
    )
    spend = offline_spend(legacy)
    (root / "chance.txt").write_text(spend.text() + "\n")
    (root / "chance-prev.hex").write_text(spend.prev_hex + "\n")
    chance = ("sign", root / "chance.txt", "--prev-tx", root / "chance-prev.hex", "--yes")
    signer("airlock-signer-sign--chance", *chance, "--out", root / "chance-signed.txt")
    watcher("airlock-watcher-combine--chance", "combine", root / "chance-signed.txt", root / "chance.txt")
    watcher("airlock-watcher-combine", "combine", root / "signed.psbt", "--out", root / "combined.psbt")
    watcher("airlock-watcher-finalize", "finalize", root / "combined.psbt", "--out", root / "final.psbt")
    sent = watcher("airlock-watcher-broadcast", "broadcast", root / "final.psbt")
    (root / "tx.hex").write_text(sent["transaction"] + "\n")
    runs("airlock-signer-inspect--transaction", "airlock-signer", "inspect", root / "tx.hex", "--as", "transaction")
    subprocess.run([str(bin_dir / "airlock-watcher"), "sync"], env=home.env, check=True, capture_output=True)
    watcher("airlock-watcher-bump", "bump", sent["txid"], "--fee-rate", "10", "--out", root / "bump.psbt")
    watcher("airlock-watcher-wallets-delete", "--data-dir", root / "restored", "wallets", "delete", "w", "--yes")

    # Ethereum: the signer's account, the watcher on the devnet
    _ethereum_runs(runs, signer, watcher, root)

    # a partly signed multisig PSBT: who has signed, how many signatures are missing (issue 17 item 6)
    _multisig_runs(runs, signer, watcher, root, multisig_descriptor(keys))

    # a miniscript policy wallet: registration in words, send --recovery, the signer's path review (issue 17 item 4)
    _miniscript_runs(runs, signer, watcher, root, node, keys)

    # serve: its one line {"url", "port"} before it serves (until stopped)
    served = start_serve(bin_dir, home.env)
    served.stop()
    runs.outputs["airlock-watcher-serve"] = {"url": served.url, "port": served.port}

    tree = commands(bin_dir)
    for command in tree:
        if command.has_json and not command.has_subcommands:
            assert any(g == command.name or g.startswith(command.name + "--") for g in runs.outputs), (
                f"{command.name} takes --json but this test has no run of it: add one above"
            )
    names = set()
    for golden, value in sorted(runs.outputs.items()):
        names.add(golden + ".json")
        _compare(
            GOLDEN / "json" / f"{golden}.json",
            json.dumps(shape(value), indent=2, sort_keys=True) + "\n",
            f"the --json shape of {golden}",
        )
    assert _stale(GOLDEN / "json", names) == [], "golden JSON files without a run"


def _silent_payment_runs(signer, watcher, root):
    from test_silent_payments import Recipient, foreign_second_input

    address = Recipient().address
    plan = ("send", "--to", address, "--amount", "50000sat", "--fee-rate", "2")
    watcher("airlock-watcher-send--dry-run-silent-payment", *plan, "--dry-run")
    watcher("airlock-watcher-send--silent-payment", *plan, "--out", root / "sp.psbt")
    (root / "sp-two.psbt").write_bytes(foreign_second_input((root / "sp.psbt").read_bytes()))
    signer("airlock-signer-sign--shares-added", "sign", root / "sp-two.psbt", "--yes", "--out", root / "sp-shares.psbt")


def _ethereum_runs(runs, signer, watcher, root):
    from test_watcher_eth import rpc, start_devnet

    proc, devnet = start_devnet()
    try:
        signer("airlock-signer-export--eth", "export", "--chain", "eth", "--out", root / "eth.txt")
        imported = watcher(
            "airlock-watcher-eth-import",
            "eth",
            "import",
            root / "eth.txt",
            "--name",
            "e",
            "--chain-id",
            devnet["chain_id"],
        )
        address = imported["addresses"][0]["address"]
        watcher("airlock-watcher-node-set--eth", "node", "set", f"eth+http://127.0.0.1:{devnet['rpc']}")
        rpc(devnet, "dev_faucet", [address, hex(10**18)])
        rpc(devnet, "dev_mint", [address, hex(5_000_000)])
        watcher("airlock-watcher-eth-token-add", "eth", "token", "add", devnet["token"])
        watcher("airlock-watcher-eth-sync", "eth", "sync")
        watcher("airlock-watcher-eth-balance", "eth", "balance")
        watcher("airlock-watcher-eth-token-list", "eth", "token", "list")
        watcher("airlock-watcher-eth-receive", "eth", "receive", "--amount", "0.5eth")
        payee = "0x" + "35" * 20
        watcher(
            "airlock-watcher-eth-send", "eth", "send", "--to", payee, "--amount", "0.01eth", "--out", root / "eth.req"
        )
        signer("airlock-signer-sign--eth", "sign", root / "eth.req", "--yes", "--out", root / "eth.sig")
        watcher("airlock-watcher-eth-broadcast", "eth", "broadcast", root / "eth.sig", "--wait")
        waiting = watcher(
            "airlock-watcher-eth-send--token",
            "eth",
            "send",
            "--to",
            payee,
            "--token",
            devnet["token"],
            "--amount",
            "1.5",
        )
        watcher("airlock-watcher-eth-bump", "eth", "bump", waiting["request_id"])
        watcher("airlock-watcher-eth-history", "eth", "history")
        watcher("airlock-watcher-eth-token-remove", "eth", "token", "remove", devnet["token"])
    finally:
        proc.terminate()
        proc.wait(timeout=30)
