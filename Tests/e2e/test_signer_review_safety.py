"""Issue 26, classes 1 and 2 on the Bitcoin side: untrusted text reaches the screen escaped, and every request is shown
before any question.

Class 1: an escape sequence (clear screen, cursor home) and a right-to-left override in a BIP322 or legacy message, in
a wallet name (registration and the spend's review) and in a cosigner name; the review shows them as `\\u` escapes
with the hidden-characters warning, `--json` gives the data as it is with `"hidden_characters": true`. Driven through
a real terminal (tmux), the captured screen still shows the payee, the address and the warning. Class 2: the review
reaches stderr before the question under --json, --qr, --out and stdin input. PSBTs built with embit; each attack
beside a control.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from signer_psbt import Vault, embit_psbt, multisig_descriptor
from terminal import TmuxSession, shell_line
from test_register_paths import stranger
from test_signer_attacks import STRANGER, coin_for, simple

ESCAPE = "\x1b[2J\x1b[H"  # clear the screen, cursor home
RTL = "\u202e"
HIDDEN = "held hidden characters"


@pytest.fixture
def solo(bin_dir, home):
    vault = Vault(bin_dir, home.env, home.root, "solo")
    vault.desc = vault.export("wpkh")
    return vault


def hostile_wallet(vault: Vault, name: str) -> str:
    """A 2-of-3 with two strangers, registered under `name`; its descriptor."""
    desc = multisig_descriptor([vault.export("wsh-multi"), stranger(b"\x01" * 32)[0], stranger(b"\x02" * 32)[0]])
    proc = vault.run("multisig", "register", "-", "--name", name, "--yes", "--json", input=desc.encode())
    assert proc.returncode == 0, proc.stderr.decode()
    return desc


def multisig_spend(desc: str, tmp_path, name="ms.psbt"):
    psbt = embit_psbt(desc, [coin_for(desc, 0, 100_000)], [(STRANGER, 60_000)], change=(0, 39_000))
    path = tmp_path / name
    path.write_bytes(psbt.serialize())
    return path


# --- class 1 -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [("--script", "wpkh"), ("--script", "pkh", "--format", "legacy")])
def test_message_escape_and_bidi_are_escaped_and_flagged(solo, fmt):
    message = f"I pay {RTL}moc.elgoog{ESCAPE} nothing\nsecond line"
    proc = solo.run("message", "sign", *fmt, "--index", "0", "--message", message, "--yes", "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "\x1b" not in err and RTL not in err
    assert "\\u202emoc.elgoog\\u001b[2J\\u001b[H nothing" in err and "  | second line" in err
    assert HIDDEN in err
    out = json.loads(proc.stdout)
    assert out["message"] == message and out["hidden_characters"] is True
    # Control: a plain message carries no flag and no warning.
    plain = solo.run("message", "sign", *fmt, "--index", "0", "--message", "hello\nthere", "--yes", "--json")
    assert plain.returncode == 0 and HIDDEN not in plain.stderr.decode()
    assert "hidden_characters" not in json.loads(plain.stdout)


def test_a_wallet_name_with_hidden_characters_is_escaped_at_registration_and_in_the_spend(solo, tmp_path):
    name = f"fam{ESCAPE}ily{RTL}"
    desc = multisig_descriptor([solo.export("wsh-multi"), stranger(b"\x01" * 32)[0], stranger(b"\x02" * 32)[0]])
    proc = solo.run("multisig", "register", "-", "--name", name, "--yes", "--json", input=desc.encode())
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "\x1b" not in err and RTL not in err and "fam\\u001b[2J\\u001b[Hily\\u202e" in err and HIDDEN in err
    out = json.loads(proc.stdout)
    assert out["name"] == name and out["hidden_characters"] is True
    listing = solo.run("multisig", "list")
    shown = (listing.stdout + listing.stderr).decode()
    assert "\x1b" not in shown and "fam\\u001b[2J\\u001b[Hily\\u202e" in shown and HIDDEN in shown
    # The spend's review names the wallet escaped, with the warning; --json keeps the name and flags it.
    proc = solo.run("sign", str(multisig_spend(desc, tmp_path)), "--yes", "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "\x1b" not in err and RTL not in err and "fam\\u001b[2J\\u001b[Hily\\u202e" in err
    assert STRANGER in err.split("SENDING")[1].split("FEE:")[0]
    assert HIDDEN in err.split("WARNINGS:")[1]
    out = json.loads(proc.stdout)
    assert out["hidden_characters"] is True and any(HIDDEN in w for w in out["warnings"])
    (change,) = [o for o in out["outputs"] if o["change"]]
    assert name in change["wallet"] and change["hidden_characters"] is True
    # Control: a plain wallet name, no flag.
    clean = Vault(solo.bin_dir, solo.env, solo.root, "clean")
    desc = hostile_wallet(clean, "family")
    out = json.loads(clean.run("sign", str(multisig_spend(desc, tmp_path, "c.psbt")), "--yes", "--json").stdout)
    assert "hidden_characters" not in out and not any(HIDDEN in w for w in out["warnings"])


def test_a_cosigner_name_with_hidden_characters_is_refused(solo):
    """Cosigner names are the user's own words: one holding a terminal control or a bidi override is refused (exit 1)
    and nothing is registered; the control registers."""
    b, b_fp = stranger(b"\x01" * 32)
    desc = multisig_descriptor([solo.export("wsh-multi"), b, stranger(b"\x02" * 32)[0]])
    for bad in (f"Al{ESCAPE}ice", f"Al{RTL}ice"):
        proc = solo.run("multisig", "register", "-", "--cosigner", f"{b_fp}={bad}", "--yes", input=desc.encode())
        assert proc.returncode == 1 and "\x1b" not in proc.stderr.decode() and RTL not in proc.stderr.decode()
    ok = solo.run("multisig", "register", "-", "--cosigner", f"{b_fp}=Alice", "--yes", input=desc.encode())
    assert ok.returncode == 0, ok.stderr.decode()


# --- class 2 -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [(), ("--json",), ("--out", "signed.psbt"), ("--qr", "signed.png"), ("--json", "--out", "s.psbt", "--qr", "s.png")],
)
def test_the_review_comes_before_the_question(solo, tmp_path, extra):
    path = tmp_path / "p.psbt"
    path.write_bytes(simple(solo).serialize())
    proc = solo.run("sign", str(path), *extra, input=b"n\n")
    err = proc.stderr.decode()
    assert proc.returncode == 4 and "declined" in err
    assert 0 <= err.index("SENDING") < err.index(STRANGER) < err.index("Sign this transaction?")
    assert not (tmp_path / "signed.psbt").exists() and not (tmp_path / "signed.png").exists()
    # Control: "y" signs.
    yes = solo.run("sign", str(path), *extra, input=b"y\n")
    assert yes.returncode == 0, yes.stderr.decode()


def test_a_request_on_stdin_is_reviewed_and_not_approved_without_a_terminal(solo):
    """stdin carried the PSBT: the answer cannot come from it. The review is shown, then (no terminal in this test)
    nothing is signed; --yes signs."""
    psbt = simple(solo).serialize()
    for extra in ((), ("--json",)):
        proc = subprocess.run(
            [str(solo.bin_dir / "airlock-signer"), "sign", "-", *extra, "--vault", str(solo.path)]
            + ["--password-file", str(solo.password_file)],
            input=psbt,
            capture_output=True,
            env=solo.env,
            start_new_session=True,  # no controlling terminal
        )
        err = proc.stderr.decode()
        assert proc.returncode == 4 and "no terminal to confirm on" in err, err
        assert err.index("SENDING") < err.index("error:")
    ok = solo.run("sign", "-", "--yes", input=psbt)
    assert ok.returncode == 0, ok.stderr.decode()


def test_message_register_and_key_export_show_their_review_first(solo):
    for args, review in (
        (("message", "sign", "--index", "0", "--message", "hi", "--json"), "Sign a message (not a transaction)"),
        (("key", "export", "--index", "0", "--format", "wif", "--show-secret", "--json"), None),
    ):
        proc = solo.run(*args)
        assert proc.returncode == 4, proc.stderr.decode()
        if review:
            assert proc.stderr.decode().index(review) < proc.stderr.decode().index("no terminal to confirm on")
    desc = multisig_descriptor([solo.export("wsh-multi"), stranger(b"\x01" * 32)[0], stranger(b"\x02" * 32)[0]])
    proc = solo.run("multisig", "register", "-", "--json", input=desc.encode())
    err = proc.stderr.decode()
    assert proc.returncode == 4 and err.index("Multisig wallet") < err.index("no terminal to confirm on")
    # Controls: with --yes each goes through, the review still shown.
    out = solo.run("key", "export", "--index", "0", "--format", "wif", "--show-secret", "--yes")
    assert out.returncode == 0 and "Export a private key" in out.stderr.decode()
    out = solo.run("message", "sign", "--index", "0", "--message", "hi", "--json", "--yes")
    assert out.returncode == 0 and "Sign a message" in out.stderr.decode()


# --- through a real terminal ---------------------------------------------------------------------------------------


def on_terminal(vault: Vault, args: list[str], tmp_path, wait_for: str) -> str:
    """Runs the signer in tmux without --yes, returns the screen at the question, answers no, checks exit 4."""
    argv = [vault.bin_dir / "airlock-signer", *args, "--vault", vault.path, "--password-file", vault.password_file]
    with TmuxSession(shell_line(argv, vault.env), width=200, height=80) as tmux:
        screen = tmux.wait_for(wait_for, timeout=60)
        assert wait_for in screen, screen
        tmux.send_keys("n", "Enter")
        end = tmux.wait_for("EXIT=", timeout=20)
        assert "EXIT=4" in end, end
        return screen


def test_escape_and_bidi_in_a_message_on_a_real_terminal(solo, tmp_path):
    message = tmp_path / "m.txt"
    message.write_text(f"{ESCAPE}{RTL}moc.elgoog ot lla yaP\n")
    screen = on_terminal(solo, ["message", "sign", "--index", "0", "--message-file", str(message)], tmp_path, "[y/N]")
    address = json.loads(solo.run("address", "--index", "0", "--json", check=True).stdout)["address"]
    assert f"address: {address}" in screen and "Sign a message (not a transaction)" in screen
    assert "\\u001b[2J\\u001b[H\\u202emoc.elgoog" in screen and HIDDEN in screen


def test_escape_and_bidi_in_a_wallet_name_on_a_real_terminal(solo, tmp_path):
    desc = hostile_wallet(solo, f"fam{ESCAPE}ily{RTL}")
    screen = on_terminal(solo, ["sign", str(multisig_spend(desc, tmp_path))], tmp_path, "Sign this transaction?")
    assert STRANGER in screen and "SENDING (1 destination):" in screen and "WARNINGS:" in screen
    assert HIDDEN in screen and "fam\\u001b[2J\\u001b[Hily\\u202e" in screen
