"""Issue 27, the user-experience half: what a new user meets in the first hour.

- Every command that writes files says which (stdout, or `"files"` under --json); `--qr NAME.png` writes `NAME.png`
  for one code and `NAME-01ofNN.png` … for several; a name of the other form gets "did you mean".
- Frames carry a caption under the code and still decode.
- Both executables end quietly (status 0, nothing on stderr) when stdout's reader goes away.
- Errors read as advice: no Swift case or type names, no module names, no errno, no long hex; each with the exit code
  of the CLI contract (docs/architecture.md section 2).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from PIL import Image
from roundtrip_helpers import outside_address
from signer_psbt import Coin, Vault, embit_psbt
from terminal import answers, run_in_pty

# What a message a user reads must not hold (issue 27, "Must show").
INTERNALS = [
    re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\("),  # a case name with its payload: invalidEncoding(
    re.compile(r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\("),  # a type with its payload: SingleConnectionFailure(
    re.compile(r"errno"),
    re.compile(r"\b(Bitcoin|Ethereum|AirgapTransport|QRImage|ChainCore|ChainBackends|NIOCore|NIOPosix|Swift)\."),
    re.compile(r"[0-9a-fA-F]{65,}"),
]


def assert_plain(text: str) -> None:
    for pattern in INTERNALS:
        assert not pattern.search(text), f"message shows internals ({pattern.pattern}): {text}"


def funding(desc_first_address_spk: bytes, value: int = 500_000) -> Transaction:
    return Transaction(
        version=2, vin=[TransactionInput(os.urandom(32), 0)], vout=[TransactionOutput(value, desc_first_address_spk)]
    )


@pytest.fixture
def vault(bin_dir, home) -> Vault:
    return Vault(bin_dir, home.env, home.root, "first")


def unsigned_psbt(vault: Vault, outputs: int = 1) -> bytes:
    """A PSBT spending one coin of the vault's wpkh account to `outputs` outside addresses."""
    from embit.descriptor import Descriptor

    desc = vault.export("wpkh")
    spk = Descriptor.from_string(desc.split("#")[0]).derive(0, branch_index=0).script_pubkey()
    coin = Coin(funding(spk), 0, 0)
    sends = [(outside_address(), 10_000 + n) for n in range(outputs)]
    change = coin.value - sum(v for _, v in sends) - 2_000
    return embit_psbt(desc, [coin], sends, change=(0, change)).serialize()


# --- which files were written -------------------------------------------------------------------------------------


def test_multi_frame_qr_names_are_printed_and_the_single_name_gets_did_you_mean(run, vault, home):
    """`export --format ur --qr account.png` writes account-01ofNN.png … and says so; `import account.png` (the
    README's old next line) is told the names; the frames import."""
    out = vault.run("export", "--format", "ur", "--qr", "account.png", "--qr-density", "low", check=True)
    names = [line.removeprefix("wrote ") for line in out.stdout.decode().splitlines()]
    assert len(names) > 1 and all(re.fullmatch(rf"account-\d\dof{len(names):02d}\.png", n) for n in names), names
    assert all((home.root / n).exists() for n in names) and not (home.root / "account.png").exists()
    missing = run("airlock-watcher", "import", "account.png", "--name", "savings")
    stderr = missing.stderr.decode()
    assert missing.returncode == 6 and "did you mean account-*.png" in stderr, stderr
    assert_plain(stderr)
    imported = run("airlock-watcher", "import", *names, "--name", "savings")
    assert imported.returncode == 0, imported.stderr.decode()
    # --json lists the same files
    again = json.loads(vault.run("export", "--format", "ur", "--qr", "acct.png", "--json", check=True).stdout)
    assert again["files"] and all(Path(home.root / f).exists() for f in again["files"])


def test_one_code_is_named_as_given_and_the_frame_form_gets_did_you_mean(run, vault, home):
    """A payload of one code is NAME.png; `NAME-*.png` (the shell's unmatched glob) and `NAME-01of02.png` point back
    to it. The captioned PNG decodes."""
    out = vault.run("export", "--format", "descriptor", "--qr", "desc.png", check=True)
    assert out.stdout.decode().splitlines() == ["wrote desc.png"]
    for wrong in ("desc-*.png", "desc-01of02.png", "desc*.png"):
        proc = run("airlock-signer", "inspect", wrong)
        stderr = proc.stderr.decode()
        assert proc.returncode == 6 and "did you mean desc.png?" in stderr, stderr
    shown = run("airlock-signer", "inspect", "desc.png", "--json", check=True)
    assert json.loads(shown.stdout)["type"] == "descriptor"


def test_captions_under_frames_and_they_still_decode(run, vault, home):
    """Each frame's PNG has a caption line below the code's quiet zone (dark pixels there); a
    sheet of the frames decodes as a whole; the number of frames matches UR's own part count."""
    psbt = home.root / "request.psbt"
    psbt.write_bytes(unsigned_psbt(vault, outputs=6))
    out = run(
        "airlock-watcher", "convert", str(psbt), "--to", "ur", "--qr", "req.png", "--qr-density", "low", check=True
    )
    names = [line.removeprefix("wrote ") for line in out.stdout.decode().splitlines()]
    assert len(names) > 1
    note = out.stderr.decode()
    assert f"({len(names)} parts)" in note, note  # the parts the text has are the frames written
    for name in names:
        image = Image.open(home.root / name).convert("L")
        width, height = image.size
        # the code's quiet zone (24 px) ends the square part; the caption's line is in the last 40 rows
        band = image.crop((0, height - 40, width, height))
        assert min(band.tobytes()) == 0, f"{name}: no caption drawn under the code"
        # and the caption stands apart: the 16 rows above its band (the code's quiet zone) are blank
        assert min(image.crop((0, height - 56, width, height - 40)).tobytes()) == 255, f"{name}: caption overlaps"
    decoded = run("airlock-signer", "inspect", *names, "--json", check=True)
    assert json.loads(decoded.stdout)["type"] == "psbt"
    sheet = run("airlock-watcher", "convert", str(psbt), "--to", "ur", "--qr", "sheet.png", "--qr-sheet")
    assert sheet.returncode == 0 and sheet.stdout.decode().splitlines() == ["wrote sheet.png"]
    assert json.loads(run("airlock-signer", "inspect", "sheet.png", "--json", check=True).stdout)["type"] == "psbt"


# --- broken pipe ----------------------------------------------------------------------------------------------------


def commands_printing_lines(vault: Vault, home, psbt: Path) -> list[list[str]]:
    vault_args = ["--vault", str(vault.path), "--password-file", str(vault.password_file)]
    return [
        ["airlock-signer", "--help"],
        ["airlock-signer", "inspect", str(psbt)],
        ["airlock-signer", "inspect", str(psbt), "--json"],
        ["airlock-signer", "export", "--format", "json", *vault_args],
        ["airlock-signer", "export", "--format", "ur", "--terminal", *vault_args],
        ["airlock-signer", "info", "--json", *vault_args],
        ["airlock-watcher", "--help"],
        ["airlock-watcher", "send", "--help"],
        ["airlock-watcher", "inspect", str(psbt), "--json"],
        ["airlock-watcher", "convert", str(psbt), "--to", "ur", "--qr-density", "low"],
        ["airlock-watcher", "convert", str(psbt), "--to", "ur", "--terminal"],
        ["airlock-watcher", "addresses", "--json"],
        ["airlock-watcher", "wallets", "--json"],
        ["airlock-watcher", "balance"],
        ["airlock-watcher", "balance", "--json"],
        ["airlock-watcher", "receive"],
        ["airlock-signer", "address", "--index", "0", "--json", *vault_args],
        ["airlock-signer", "key", "list", "--json", *vault_args],
        ["airlock-signer", "multisig", "list", "--json", *vault_args],
        ["airlock-signer", "export", "--format", "descriptor", "--json", *vault_args],
    ]


def test_a_closed_stdout_ends_every_command_quietly(bin_dir, run, vault, home):
    """stdout closed before the first byte (the harshest `| head -0`) and `| head -1`: status 0, nothing on stderr
    (but the summary a command always writes there, as convert does)."""
    psbt = home.root / "d.txt"
    psbt.write_bytes(unsigned_psbt(vault, outputs=3))
    import_savings(run, vault)
    for command in commands_printing_lines(vault, home, psbt):
        tool, *args = command
        full = subprocess.run([str(bin_dir / tool), *args], capture_output=True, env=home.env, cwd=home.root)
        assert full.returncode == 0 and full.stdout.count(b"\n") > 1, (command, full.stderr.decode())
        read_end, write_end = os.pipe()
        os.close(read_end)
        proc = subprocess.run(
            [str(bin_dir / tool), *args], stdout=write_end, stderr=subprocess.PIPE, env=home.env, cwd=home.root
        )
        os.close(write_end)
        # nothing on stderr beyond what the command says anyway (convert's summary line): no error, no backtrace
        assert proc.returncode == 0 and proc.stderr == full.stderr, (command, proc.returncode, proc.stderr.decode())
        line = " ".join(f"'{a}'" for a in [str(bin_dir / tool), *args])
        piped = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {line} | head -1 >/dev/null"],
            capture_output=True,
            env=home.env,
            cwd=home.root,
        )
        assert piped.returncode == 0 and piped.stderr == full.stderr, (command, piped.returncode, piped.stderr.decode())


# --- errors as advice -----------------------------------------------------------------------------------------------


def check_error(proc, code: int, *needles: str) -> str:
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode == code, f"exit {proc.returncode}, want {code}: {stderr}"
    for needle in needles:
        assert needle in stderr, f"{needle!r} not in: {stderr}"
    assert_plain(stderr)
    return stderr


def import_savings(run, vault) -> None:
    """The vault's wpkh account as the watcher's regtest wallet 'savings'."""
    run(
        "airlock-watcher",
        "import",
        "-",
        "--name",
        "savings",
        "--network",
        "regtest",
        input=vault.export("wpkh"),
        check=True,
    )


def test_error_sweep(run, vault, home, bin_dir):
    """Each case of issue 27's list: its exit code, advice in the message, no internals."""
    import_savings(run, vault)
    outside = outside_address()
    # mistyped subcommands, on both sides and one level down
    check_error(run("airlock-signer", "sing", "x.psbt"), 1, "did you mean 'sign'?")
    check_error(run("airlock-watcher", "balanse"), 1, "did you mean 'balance'?")
    check_error(run("airlock-watcher", "node", "shwo"), 1, "did you mean 'show'?")
    # an unknown option before the count check of the options understood
    check_error(run("airlock-watcher", "send", "--to", outside, "--amout", "0.1btc"), 1, "--amout", "--amount")
    # amounts need a unit
    check_error(run("airlock-watcher", "send", "--to", outside, "--amount", "10000"), 1, "10000btc", "10000sat")
    check_error(run("airlock-watcher", "receive", "--amount", "0.5"), 1, "0.5btc")
    # a mistyped address: no case name
    bad = outside[:-1] + ("q" if outside[-1] != "q" else "p")
    check_error(run("airlock-watcher", "send", "--to", bad, "--amount", "1000sat"), 2, bad)
    # a truncated PNG: no chunk type dump
    vault.run("export", "--format", "descriptor", "--qr", "good.png", check=True)
    data = (home.root / "good.png").read_bytes()
    (home.root / "cut.png").write_bytes(data[: len(data) // 2])
    check_error(run("airlock-signer", "inspect", "cut.png"), 2, "cut.png")
    # a descriptor with a broken key
    check_error(
        run(
            "airlock-signer",
            "inspect",
            "-",
            input="wpkh(tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjcMoaaaa)",
        ),
        2,
    )
    # a node that is not running
    run("airlock-watcher", "node", "set", "electrum://127.0.0.1:9", check=True)
    check_error(run("airlock-watcher", "sync"), 5, "connection refused", "is the node running?")
    # broadcasting a PSBT nobody signed
    psbt = home.root / "unsigned.psbt"
    psbt.write_bytes(unsigned_psbt(vault))
    check_error(run("airlock-watcher", "broadcast", str(psbt)), 2, "not signed yet", "airlock-signer")
    # a wrong password from a file: one try, exit 3
    wrong = home.root / "wrong-pw.txt"
    wrong.write_text("not it\n")
    proc = run("airlock-signer", "info", "--vault", str(vault.path), "--password-file", str(wrong))
    stderr = check_error(proc, 3)
    assert "left" not in stderr


def test_the_journal_knows_what_was_signed(vault, home):
    """Its own signed answer fed back is named as such (exit 2); the same request signed twice gets a note."""
    psbt = home.root / "spend.psbt"
    psbt.write_bytes(unsigned_psbt(vault))
    first = vault.sign(psbt, args=("--out", "signed.psbt"))
    assert first.stdout.decode().splitlines() == ["wrote signed.psbt"]
    answer = vault.sign(home.root / "signed.psbt", check=False)
    stderr = check_error(answer, 2, "this is the signed answer you wrote on", "journal entry 1")
    again = vault.sign(psbt, args=("--out", "again.psbt"))
    assert "already signed on" in again.stderr.decode() and "(journal entry 1)" in again.stderr.decode()
    assert_plain(stderr)


def test_confirmation_answer_on_the_questions_line(vault, home):
    """`[y/N] ` ends without a newline, so the answer typed stays on the question's line."""
    psbt = home.root / "spend.psbt"
    psbt.write_bytes(unsigned_psbt(vault))
    proc = vault.run("sign", str(psbt), "--out", "s.psbt", input=b"n\n")
    stderr = proc.stderr.decode()
    assert proc.returncode == 4 and "? [y/N] \n" in stderr, stderr


@pytest.mark.parametrize("backend", ["electrum", "bitcoind"])
def test_broadcast_twice_says_already_broadcast(run, home, bin_dir, regtest_node, tmp_path, backend):
    """A transaction the node already has in a block (Core's "Transaction outputs already in utxo set", or its
    Electrum server's copy of it): "already broadcast (txid …)", exit 0, no hex dump. Control: the first broadcast
    sends it."""
    from roundtrip_helpers import Watcher
    from test_roundtrip import node_url

    node = regtest_node
    vault = Vault(bin_dir, home.env, home.root, "twice")
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", "twice", "--network", "regtest", input=vault.export("wpkh"))
    watcher("node", "set", node_url(node, backend))
    address = watcher.json("receive")["address"]
    node.send_to(address, 200_000)
    node.mine(1)
    watcher("sync")
    sent = watcher.json("send", "--to", outside_address(), "--amount", "50000sat", "--fee-rate", "2", "--out", "u.psbt")
    assert sent["files"] == ["u.psbt"]
    vault.sign(home.root / "u.psbt", args=("--out", str(home.root / "s.psbt")))
    first = watcher("broadcast", home.root / "s.psbt")
    assert first.stdout.decode().strip() == sent["txid"] and "already" not in first.stderr.decode()
    # in the mempool the node takes it again without a word; once mined it refuses it: that is no error either
    in_mempool = watcher("broadcast", home.root / "s.psbt")
    assert in_mempool.stdout.decode().strip() == sent["txid"]
    node.mine(1)
    again = watcher("broadcast", home.root / "s.psbt", check=False)
    stderr = again.stderr.decode()
    assert again.returncode == 0 and f"already broadcast (txid {sent['txid']})" in stderr, stderr
    assert again.stdout.decode().strip() == sent["txid"]
    assert_plain(stderr.replace(sent["txid"], "TXID"))
    # history: date first seen, confirmations at the synced tip, the txid (issue 27, "Smaller")
    watcher("sync")
    lines = watcher("history").stdout.decode().splitlines()
    spent = next(line for line in lines if sent["txid"] in line)
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC  -0\.000\d+ BTC  1 confirmation \(block \d+\)  ", spent), spent
    assert json.loads(watcher("history", "--json").stdout)[0]["confirmations"] == 1


def test_three_password_tries_on_a_terminal(bin_dir, vault, home):
    """Typed on a terminal: two wrong passwords, then the right one, unlock (exit 0) with "2 tries left", "1 try
    left" on the way; three wrong ones end with exit 3. With --password-file one wrong try is the end (exit 3, above)."""
    argv = [str(bin_dir / "airlock-signer"), "info", "--vault", str(vault.path)]
    right = vault.password_file.read_text().strip()
    tries = answers("Vault password:", "wrong-1", "wrong-2", right, hidden=True)
    code, transcript = run_in_pty(argv, home.root, home.env, tries)
    assert code == 0, transcript
    assert "wrong password; 2 tries left" in transcript and "wrong password; 1 try left" in transcript, transcript
    tries = answers("Vault password:", "wrong-1", "wrong-2", "wrong-3", hidden=True)
    code, transcript = run_in_pty(argv, home.root, home.env, tries)
    assert code == 3 and transcript.count("Vault password:") == 3, transcript
    assert_plain(transcript)
