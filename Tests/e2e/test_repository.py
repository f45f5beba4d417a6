"""The repository is whole on its own: no tracked file points outside it (docs/architecture.md section 1).

Some developers have a `shared` directory beside the clone that the project's contract, style notes and test vectors
were first copied from; a clone alone has none, so no tracked file may name it. Tests/Vectors/README.md is the one
exception: its provenance rows name where the vector files were copied from.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Spelled in pieces, so this file does not itself name what it forbids.
SHARED = "shared"
FORBIDDEN = (
    "../" + SHARED,
    SHARED + "/vectors",
    SHARED + "/DESIGN",
    SHARED + "/STYLE",
    "DESIGN" + ".md",
    "STYLE" + ".md",
    "PEERS" + ".md",
)
EXEMPT = {"Tests/Vectors/README.md", "Tests/e2e/test_repository.py"}


def outside_pointers(root: Path, paths: list[str]) -> list[str]:
    """Every `path:line: text` among `paths` (relative to root) that names a forbidden outside path."""
    hits = []
    for rel in paths:
        if rel in EXEMPT:
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue  # binary files (PNGs, fuzz corpora) and submodule entries
        for number, line in enumerate(text.splitlines(), 1):
            if any(word in line for word in FORBIDDEN):
                hits.append(f"{rel}:{number}: {line.strip()}")
    return hits


def test_no_tracked_file_names_the_shared_directory():
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True).stdout
    paths = [p for p in tracked.decode().split("\0") if p]
    assert len(paths) > 100, "git ls-files listed too few files to be this repository"
    assert outside_pointers(REPO, paths) == []


def test_the_check_finds_a_pointer_outside(tmp_path):
    """Control: the same check reports a file that names the shared directory, and passes a clean one."""
    (tmp_path / "clean.md").write_text("See docs/architecture.md.\n")
    (tmp_path / "bad.swift").write_text("// see DESIGN.md section 2\nlet x = 1\n")
    (tmp_path / "bad.py").write_text(f'VECTORS = "../{SHARED}/vectors"\n')
    assert outside_pointers(tmp_path, ["clean.md", "bad.swift", "bad.py"]) == [
        "bad.swift:1: // see DESIGN.md section 2",
        f'bad.py:1: VECTORS = "../{SHARED}/vectors"',
    ]
