"""BIP-386 (tr() descriptors): every valid and invalid case of the BIP's Test Vectors section
(Tests/Vectors/descriptors/bip386_full.json, copied whole with provenance) through `airlock-signer inspect`.

Valid descriptors parse and give the BIP's scripts (children 0, 1, 2 of a ranged one); the one the BIP gives no script
for, `tr(KEY,pkh(KEY))` (miniscript's `pkh` in a tree expression), gives the script embit computes. Invalid ones exit 2
with a message and nothing on stdout. Private keys in the vectors are never printed back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from embit.descriptor import Descriptor as EmbitDescriptor

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "Vectors/descriptors/bip386_full.json").read_text())


def inspect(run, text: str):
    return run("airlock-signer", "inspect", "-", "--json", "--count", "3", input=text)


def test_the_file_holds_the_bips_whole_lists():
    """Six valid and four invalid cases, as the BIP lists them (the control for the parametrised cases below)."""
    assert len(VECTORS["valid"]) == 6 and len(VECTORS["invalid"]) == 4
    assert [v["bip_index"] for v in VECTORS["valid"]] == list(range(6))
    assert any("pkh(" in v["descriptor"] and not v["scripts"] for v in VECTORS["valid"])


@pytest.mark.parametrize("case", VECTORS["valid"], ids=lambda c: f"valid-{c['bip_index']}")
def test_valid_bip386_descriptors_give_the_bips_scripts(run, case):
    proc = inspect(run, case["descriptor"])
    assert proc.returncode == 0, proc.stderr.decode()
    report = json.loads(proc.stdout)
    assert report["type"] == "descriptor"
    expected = case["scripts"] or [EmbitDescriptor.from_string(case["descriptor"]).script_pubkey().data.hex()]
    assert report["scripts"][: len(expected)] == expected
    out = proc.stdout.decode()
    for secret in ("xprv", "L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1"):
        assert secret not in out


@pytest.mark.parametrize("case", VECTORS["invalid"], ids=lambda c: f"invalid-{c['bip_index']}")
def test_invalid_bip386_descriptors_exit_2(run, case):
    proc = inspect(run, case["descriptor"])
    assert proc.returncode == 2, (case["reason"], proc.stdout.decode(), proc.stderr.decode())
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == 2 and error["message"]


def test_pkh_and_other_miniscript_fragments_in_a_tree_give_embits_scripts(run):
    """Beyond the BIP's one case: miniscript fragments in tree leaves (pkh beside pk, and_v/older, or_d, multi_a),
    each checked against embit."""
    k1 = "a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
    k2 = "669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0"
    for text in [
        f"tr({k1},pkh({k2}))",
        f"tr({k1},{{pkh({k2}),pk({k1})}})",
        f"tr({k1},and_v(v:pkh({k2}),older(144)))",
        f"tr({k1},or_d(pk({k2}),and_v(v:pkh({k1}),older(1000))))",
    ]:
        proc = inspect(run, text)
        assert proc.returncode == 0, (text, proc.stderr.decode())
        assert json.loads(proc.stdout)["scripts"][0] == EmbitDescriptor.from_string(text).script_pubkey().data.hex()
    # The control: pkh() stays refused where BIP386 does not allow it (tr() inside sh).
    assert inspect(run, f"sh(tr({k1},pkh({k2})))").returncode == 2
