"""The command tree of both executables, read from ArgumentParser's `--experimental-dump-help` (the same data the
shell completions and man pages are made from), so tests that walk it cover a new command without being edited."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

TOOLS = ("airlock-signer", "airlock-watcher")
REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "Tests" / "Golden"


def update_golden() -> bool:
    """Whether `AIRLOCK_UPDATE_GOLDEN=1` asks the golden tests to rewrite their files instead of comparing."""
    return os.environ.get("AIRLOCK_UPDATE_GOLDEN") == "1"


@dataclass(frozen=True)
class Command:
    """One command of the tree: the executable, the subcommand path, and what its help declares."""

    tool: str
    path: tuple[str, ...]
    has_json: bool
    has_subcommands: bool

    @property
    def name(self) -> str:
        """`airlock-watcher-node-set`: the stem of its golden files."""
        return "-".join((self.tool, *self.path))

    @property
    def argv(self) -> list[str]:
        return list(self.path)


def help_env() -> dict:
    """A fixed terminal width, so help text wraps the same on every machine."""
    env = dict(os.environ)
    env["COLUMNS"] = "100"
    return env


def dump_help(bin_dir: Path, tool: str) -> dict:
    out = subprocess.run(
        [str(bin_dir / tool), "--experimental-dump-help"], capture_output=True, check=True, env=help_env()
    )
    return json.loads(out.stdout)["command"]


def commands(bin_dir: Path) -> list[Command]:
    """Every command and subcommand of both executables (the built-in `help` command left out), roots included."""
    found: list[Command] = []

    def walk(tool: str, node: dict, path: tuple[str, ...]) -> None:
        subs = [s for s in node.get("subcommands", []) if s["commandName"] != "help"]
        flags = {n["name"] for a in node.get("arguments", []) for n in a.get("names", []) if n["kind"] == "long"}
        found.append(Command(tool, path, "json" in flags, bool(subs)))
        for sub in subs:
            walk(tool, sub, (*path, sub["commandName"]))

    for tool in TOOLS:
        walk(tool, dump_help(bin_dir, tool), ())
    return found
