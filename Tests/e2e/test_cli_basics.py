"""The executables exist and answer --help and --version (docs/architecture.md section 2)."""

import re

import pytest


@pytest.mark.parametrize("tool", ["airlock-signer", "airlock-watcher"])
def test_help_and_version(run, tool):
    help_ = run(tool, "--help")
    assert help_.returncode == 0
    text = help_.stdout.decode()
    assert f"USAGE: {tool}" in text
    assert "Examples:" in text
    version = run(tool, "--version")
    assert version.returncode == 0
    # "0.1.0 (commit <hash>)" from scripts/package, "0.1.0 (development build, no commit recorded)" otherwise.
    assert re.fullmatch(
        r"\d+\.\d+\.\d+ \((commit [0-9a-f]{7,40}|development build, no commit recorded)\)\n", version.stdout.decode()
    )


@pytest.mark.parametrize("tool", ["airlock-signer", "airlock-watcher"])
def test_unknown_option_is_usage_error(run, tool):
    proc = run(tool, "--no-such-option")
    assert proc.returncode != 0
    assert b"no-such-option" in proc.stderr
