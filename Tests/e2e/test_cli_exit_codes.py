"""The exit codes of the CLI contract (docs/architecture.md section 2): 0 ok, 1 usage (every argument-parser error and
validation failure: never 64), 2 invalid input, 3 authentication, 4 refused, 5 network, 6 I/O.

Every command and subcommand of both executables (walked from --experimental-dump-help, so a new command is covered
without editing this file) exits 1 on a bad command line. Each case checks that stderr names the problem and that,
with --json, stdout is one JSON document `{"error": {"code": N, "message": "…"}}`.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from cli_tree import commands
from signer_psbt import Vault


def _error_object(proc, code: int) -> str:
    """The message of the --json error object on stdout, after checking its shape and code."""
    document = json.loads(proc.stdout)
    assert list(document) == ["error"] and sorted(document["error"]) == ["code", "message"], document
    assert document["error"]["code"] == code
    assert document["error"]["message"]
    return document["error"]["message"]


def _check(proc, code: int, named: str | tuple[str, ...], json_mode: bool) -> None:
    """Exit `code`, stderr naming the problem (any of `named`), and the error object on stdout under --json."""
    stderr = proc.stderr.decode(errors="replace")
    names = (named,) if isinstance(named, str) else named
    assert proc.returncode == code, f"exit {proc.returncode}, want {code}\nstderr: {stderr}"
    assert any(n in stderr for n in names), f"stderr does not name the problem ({named!r}): {stderr}"
    if json_mode:
        message = _error_object(proc, code)
        assert any(n in message for n in names), message
    else:
        assert proc.stdout == b""


def test_every_command_exits_1_on_an_unknown_option(bin_dir, home):
    tree = commands(bin_dir)
    assert len(tree) > 30
    for command in tree:
        for json_mode in (False, True):
            args = [*command.argv, "--no-such-option"] + (["--json"] if json_mode else [])
            proc = subprocess.run(
                [str(bin_dir / command.tool), *args], capture_output=True, env=home.env, cwd=home.root, timeout=60
            )
            # a command with a required argument (or a check in validate()) may report that one first: also usage
            stderr = proc.stderr.decode()
            assert proc.returncode == 1, f"{command.name}: exit {proc.returncode}\n{stderr}"
            assert stderr.startswith("Error: ") and "\nUsage: " in stderr, f"{command.name}: {stderr}"
            if json_mode:
                assert stderr.splitlines()[0] == "Error: " + _error_object(proc, 1)
            else:
                assert proc.stdout == b""


@pytest.mark.parametrize("json_mode", [False, True])
@pytest.mark.parametrize(
    "tool, args, named",
    [
        ("airlock-signer", ["info", "--no-such-option"], "Unknown option '--no-such-option'"),
        ("airlock-watcher", ["import"], "Missing expected argument '<input> ...'"),
        ("airlock-signer", ["address"], "Missing expected argument '--index <index>'"),
        ("airlock-signer", ["init", "--words", "13"], "--words must be 12 or 24"),
        ("airlock-watcher", ["send", "--to", "bcrt1qxyz"], "give one --amount for each --to"),
        ("airlock-watcher", ["import", "x", "--gap-limit", "0"], "--gap-limit must be 1...1000"),
        ("airlock-signer", ["export", "--format", "yaml"], "The value 'yaml' is invalid for '--format <format>'"),
        ("airlock-watcher", ["frobnicate"], ("Unexpected argument 'frobnicate'", "unknown command 'frobnicate'")),
        ("airlock-signer", ["sing", "x.psbt"], "did you mean 'sign'?"),
        ("airlock-watcher", ["send", "--to", "bcrt1qxyz", "--amout", "1btc"], "did you mean --amount?"),
    ],
)
def test_usage_errors_exit_1_never_64(run, tool, args, named, json_mode):
    proc = run(tool, *args, *(["--json"] if json_mode else []))
    _check(proc, 1, named, json_mode)


@pytest.mark.parametrize("tool", ["airlock-signer", "airlock-watcher"])
def test_help_and_version_exit_0(run, tool):
    for args in (["--help"], ["--version"], ["help"], ["--json", "--help"]):
        proc = run(tool, *args)
        assert proc.returncode == 0 and proc.stdout and proc.stderr == b"", args


@pytest.fixture
def vault(bin_dir, home) -> Vault:
    return Vault(bin_dir, home.env, home.root, "v")


@pytest.mark.parametrize("json_mode", [False, True])
def test_invalid_input_exits_2(run, home, json_mode):
    garbage = home.root / "garbage.psbt"
    garbage.write_bytes(b"psbt\xff" + bytes(range(40)))
    flag = ["--json"] if json_mode else []
    _check(run("airlock-signer", "inspect", str(garbage), "--as", "psbt", *flag), 2, "invalid PSBT", json_mode)
    _check(run("airlock-watcher", "combine", str(garbage), *flag), 2, "garbage.psbt", json_mode)


@pytest.mark.parametrize("json_mode", [False, True])
def test_wrong_password_exits_3(vault, home, json_mode):
    wrong = home.root / "wrong.txt"
    wrong.write_text("not the password\n")
    proc = subprocess.run(
        [
            str(vault.bin_dir / "airlock-signer"),
            "export",
            "--vault",
            str(vault.path),
            "--password-file",
            str(wrong),
            *(["--json"] if json_mode else []),
        ],
        capture_output=True,
        env=home.env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    _check(proc, 3, "password", json_mode)


@pytest.mark.parametrize("json_mode", [False, True])
def test_refusal_exits_4(vault, json_mode):
    proc = vault.run("backup", "show", *(["--json"] if json_mode else []), input=b"")
    _check(proc, 4, "refusing to print the mnemonic without --show-secret", json_mode)


@pytest.mark.parametrize("json_mode", [False, True])
def test_unreachable_node_exits_5(run, json_mode):
    flag = ["--json"] if json_mode else []
    assert run("airlock-watcher", "node", "set", "electrum://127.0.0.1:1").returncode == 0
    _check(run("airlock-watcher", "node", "test", *flag), 5, "127.0.0.1:1", json_mode)


@pytest.mark.parametrize("json_mode", [False, True])
def test_unwritable_out_exits_6(vault, run, home, json_mode):
    flag = ["--json"] if json_mode else []
    missing = home.root / "no-such-dir" / "out.txt"
    _check(vault.run("export", "--out", str(missing), *flag), 6, str(missing.parent), json_mode)
    assert not missing.parent.exists()
    _check(run("airlock-watcher", "backup", "--out", str(missing), *flag), 6, str(missing.parent), json_mode)
