"""README and docs/architecture.md stay true to the tree: every directory under `Sources/` is named in README's
"Layout" block and in docs/architecture.md section 1's module block, neither names a module that is gone, and every
page under docs/ is linked from README or from another page. (The rounds before this one left docs describing the
tree of a month ago; this fails the suite instead.)"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def source_modules() -> set[str]:
    return {p.name for p in (REPO / "Sources").iterdir() if p.is_dir()}


def fenced_block_after(text: str, heading: str) -> str:
    """The first fenced block after `heading`."""
    start = text.index(heading)
    match = re.search(r"```\n(.*?)```", text[start:], re.S)
    assert match, f"no fenced block after {heading!r}"
    return match.group(1)


def named(block: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9-]+", block))


def test_readme_layout_names_every_source_directory():
    block = fenced_block_after((REPO / "README.md").read_text(), "## Layout")
    missing = source_modules() - named(block)
    assert not missing, f"README's Layout does not name {sorted(missing)}"


def test_architecture_module_block_names_every_source_directory():
    block = fenced_block_after((REPO / "docs" / "architecture.md").read_text(), "## 1. Modules")
    missing = source_modules() - named(block)
    assert not missing, f"docs/architecture.md section 1 does not name {sorted(missing)}"
    assert "being added" not in block and "being split out" not in block


def test_neither_names_a_module_that_is_gone():
    """Each module entry (a line that starts with a name, or `Name/` in README's layout) names a directory that exists."""
    modules = source_modules() | {"Package", "Sources", "Tests", "Fuzz", "scripts", "docs", "requirements", "C"}
    readme = fenced_block_after((REPO / "README.md").read_text(), "## Layout")
    arch = fenced_block_after((REPO / "docs" / "architecture.md").read_text(), "## 1. Modules")
    entries = re.findall(r"^ {0,2}([A-Za-z][A-Za-z0-9-]*)/", readme, re.M)
    entries += re.findall(r"^(?:   └─ )?([A-Z][A-Za-z0-9-]*)\s", arch, re.M)
    entries += re.findall(r"^(airlock-[a-z]+)\s", arch, re.M)
    assert len(entries) >= 15, entries
    gone = sorted(set(entries) - modules)
    assert not gone, f"named as modules but not under Sources/: {gone}"


def test_every_doc_page_is_linked():
    pages = {p.name for p in (REPO / "docs").glob("*.md")}
    texts = (REPO / "README.md").read_text() + "".join(p.read_text() for p in (REPO / "docs").glob("*.md"))
    unlinked = {page for page in pages if f"{page})" not in texts and f"docs/{page}" not in texts}
    assert not unlinked, f"docs pages linked from nowhere: {sorted(unlinked)}"


def test_the_check_sees_a_missing_module(tmp_path):
    """The control: a block without one module is reported."""
    block = "Sources/\n  Bitcoin/ Signer/\n"
    assert "Watcher" in source_modules() - named(block)
