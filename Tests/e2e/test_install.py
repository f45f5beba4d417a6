"""scripts/install: binaries, shell completions and man pages made from the command tree, into --prefix.

The binaries this session built are installed (AIRLOCK_BIN_DIR), so no second (release) build runs here; without
that variable the script builds them with `swift build -c release --static-swift-stdlib`. The man page is rendered
by man-db (`man -l`), and the bash completion is exercised in bash the way bash calls it (COMP_WORDS, COMP_CWORD, the -F function).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("airlock-signer", "airlock-watcher")


@pytest.fixture(scope="module")
def prefix(bin_dir, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("prefix")
    env = dict(os.environ, AIRLOCK_BIN_DIR=str(bin_dir))
    proc = subprocess.run(
        [str(REPO / "scripts" / "install"), "--prefix", str(root)], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return root


def test_installs_binaries_completions_and_man_pages(prefix):
    for tool in TOOLS:
        for path in (
            f"bin/{tool}",
            f"share/bash-completion/completions/{tool}",
            f"share/zsh/site-functions/_{tool}",
            f"share/fish/vendor_completions.d/{tool}.fish",
            f"share/man/man1/{tool}.1",
        ):
            assert (prefix / path).stat().st_size > 0, path
        version = subprocess.run([str(prefix / "bin" / tool), "--version"], capture_output=True, text=True)
        assert version.returncode == 0 and version.stdout.strip()


@pytest.mark.parametrize(
    "tool, commands",
    [
        ("airlock-signer", ["init", "restore", "sign", "inspect", "multisig register"]),
        ("airlock-watcher", ["import", "node set", "sync", "send", "labels export"]),
    ],
)
def test_man_page_renders(prefix, tool, commands):
    env = dict(os.environ, MANWIDTH="100", MANPAGER="cat", PAGER="cat", LC_ALL="C.UTF-8")
    proc = subprocess.run(
        ["man", "--warnings", "-l", str(prefix / "share/man/man1" / f"{tool}.1")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", f"groff warnings: {proc.stderr}"
    text = proc.stdout
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "SEE ALSO"):
        assert f"\n{section}\n" in text, section
    for command in commands:
        assert f"{tool} {command}" in text, command
    assert "--json" in text and "Examples:" in text


def _bash_complete(prefix: Path, tool: str, line: str) -> list[str]:
    """COMPREPLY for `line` (cursor at its end), from the installed completion script run by bash."""
    script = r"""
        source "$1"
        line="$2"
        read -r -a COMP_WORDS <<< "$line"
        [[ "$line" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE="$line"
        COMP_POINT=${#line}
        spec=$(complete -p "$3")
        function=$(sed -E 's/.*-F ([^ ]+).*/\1/' <<< "$spec")
        "$function" "$3" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\n' "${COMPREPLY[@]}"
    """
    env = dict(os.environ, PATH=f"{prefix / 'bin'}:{os.environ['PATH']}")
    proc = subprocess.run(
        ["bash", "-c", script, "complete", str(prefix / "share/bash-completion/completions" / tool), line, tool],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return sorted(w for w in proc.stdout.split("\n") if w)


def test_bash_completes_subcommands_and_options(prefix):
    assert _bash_complete(prefix, "airlock-watcher", "airlock-watcher sy") == ["sync"]
    assert _bash_complete(prefix, "airlock-watcher", "airlock-watcher ba") == ["backup", "balance"]
    assert _bash_complete(prefix, "airlock-watcher", "airlock-watcher node s") == ["set", "show"]
    assert "--data-dir" in _bash_complete(prefix, "airlock-watcher", "airlock-watcher sync --d")
    assert _bash_complete(prefix, "airlock-signer", "airlock-signer mu") == ["multisig"]
    assert _bash_complete(prefix, "airlock-watcher", "airlock-watcher zz") == []


def test_install_help_and_bad_arguments():
    script = str(REPO / "scripts" / "install")
    shown = subprocess.run([script, "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "--prefix DIR" in shown.stdout and "AIRLOCK_BIN_DIR" in shown.stdout
    bad = subprocess.run([script, "--frobnicate"], capture_output=True, text=True)
    assert bad.returncode == 1 and "unknown argument '--frobnicate'" in bad.stderr
