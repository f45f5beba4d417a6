"""Cosigner names (`multisig register --cosigner FINGERPRINT=NAME`, issue 17 item 4): the inheritance wallet P1
`wsh(or_d(multi(2,A,B,C),and_v(v:pk(D),older(10))))` registered with names, its policy in words with them at
registration, in `multisig list` and in the sign review (POLICY PATHS, who has signed); a bad `--cosigner` refused
with exit 1 and the vault unchanged (control: the good one registers); a name edited in the vault file refused at
the next unlock (control: the file as written signs). PSBTs built by embit, no node.
"""

from __future__ import annotations

import json

import pytest
from roundtrip_helpers import outside_address
from signer_psbt import Coin, embit_psbt, multisig_descriptor
from test_miniscript_spend import P1, funding, ranged, register, vaults_and_keys


def fp(vault) -> str:
    return vault.fingerprint.hex()


def named_p1(bin_dir, home, tag: str):
    """Four vaults (Alice, Bob, Carol, Dad) and P1 over their keys."""
    vaults, keys = vaults_and_keys(bin_dir, home, tuple(f"{n}-{tag}" for n in ("alice", "bob", "carol", "dad")))
    return vaults, P1.format(*ranged(keys), 10)


def register_named(vault, desc: str, *cosigners: str):
    args = [a for c in cosigners for a in ("--cosigner", c)]
    return vault.run("multisig", "register", "-", "--name", "heirs", "--yes", "--json", *args, input=desc.encode())


def test_names_in_the_policy_words_list_and_sign_review(bin_dir, home, tmp_path):
    (alice, bob, carol, dad), desc = named_p1(bin_dir, home, "w")
    names = (f"{fp(alice)}=Alice", f"{fp(bob)}=Bob", f"{fp(dad)}=Dad")
    proc = register_named(carol, desc, *names)
    assert proc.returncode == 0, proc.stderr
    review = proc.stderr.decode()
    words = f"2 of Alice, Bob, this vault ({fp(carol)}); or Dad after 10 blocks (about 100 minutes)"
    assert f"  policy: {words}\n" in review, review
    assert f'[{fp(alice)}] m/48h/1h/0h/2h   "Alice"' in review, review
    reg = json.loads(proc.stdout)
    assert reg["policy"] == f"2 of Alice, Bob, key {fp(carol)}; or Dad after 10 blocks (about 100 minutes)"
    assert reg["cosigners"] == [
        {"fingerprint": fp(alice), "name": "Alice"},
        {"fingerprint": fp(bob), "name": "Bob"},
        {"fingerprint": fp(dad), "name": "Dad"},
    ]
    # Stored with the wallet: `multisig list` (text and JSON) reads them back from the vault file.
    listed = carol.run("multisig", "list", "--json", check=True)
    wallet = json.loads(listed.stdout)[0]
    assert wallet["cosigners"] == reg["cosigners"] and wallet["policy"] == reg["policy"]
    assert "2 of Alice, Bob" in carol.run("multisig", "list", check=True).stdout.decode()
    # A wallet registered without names: fingerprints, and an empty list (control).
    plain = register(alice, desc, "heirs")
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["cosigners"] == []
    assert f"2 of this vault ({fp(alice)}), key {fp(bob)}" in plain.stderr.decode()

    # The sign review: Alice signs the primary path first; Carol's review names her and the others.
    psbt = embit_psbt(desc, [Coin(funding(desc, 0), 0, 0)], [(outside_address(), 400_000)])
    unsigned = tmp_path / "p.psbt"
    unsigned.write_bytes(psbt.serialize())
    alice.sign(unsigned, args=("--full", "--out", str(tmp_path / "a.psbt")))
    signed = carol.sign(tmp_path / "a.psbt", args=("--full", "--out", str(tmp_path / "c.psbt"), "--json"))
    text = signed.stderr.decode()
    state = json.loads(signed.stdout)["policy"][0]
    assert state["cosigners"] == sorted(reg["cosigners"], key=lambda c: c["fingerprint"])
    assert state["signed_by"] == [fp(alice)] and "Alice" in state["text"]
    assert f"  'heirs': {words}" in text, text
    assert f"signed by Alice ({fp(alice)})" in text, text
    assert f"complete: Alice ({fp(alice)}), this vault ({fp(carol)})" in text, text
    # Alice's vault has no names: her review of the same wallet shows fingerprints only (control).
    again = alice.sign(unsigned, args=("--full", "--out", str(tmp_path / "a2.psbt"))).stderr.decode()
    assert "Alice" not in again and f"this vault ({fp(alice)}), key {fp(bob)}" in again, again


@pytest.mark.parametrize(
    "bad",
    [
        "deadbeef=Eve",  # no key of the descriptor has this origin
        "{a}=",  # empty name
        "{a}=" + "x" * 33,  # too long
        "{a}=Al\x1b[2Jice",  # a terminal escape
        "{a}=Al\u202eice",  # a bidirectional override
        "{a}Alice",  # no '='
        "{a}=Alice|{a}=Alicia",  # the same cosigner twice
        "zz=Alice",  # not a fingerprint
    ],
)
def test_a_bad_cosigner_option_is_refused_and_nothing_registered(bin_dir, home, bad):
    (alice, bob, carol, dad), desc = named_p1(bin_dir, home, "b")
    before = carol.path.read_bytes()
    options = bad.format(a=fp(alice)).split("|")
    proc = register_named(carol, desc, *options)
    assert proc.returncode == 1, proc.stderr
    assert b"--cosigner" in proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == 1
    assert carol.path.read_bytes() == before
    # Control: a good name registers and changes the vault.
    good = register_named(carol, desc, f"{fp(alice)}=Alice")
    assert good.returncode == 0, good.stderr
    assert carol.path.read_bytes() != before


def test_a_name_edited_in_the_vault_file_is_refused_at_unlock(bin_dir, home, tmp_path):
    """Attack: the names are in the authenticated header; renaming Dad to Alice in the file (so the review would name
    the wrong person) makes the next unlock fail (tampered, exit 3). Control: the file as written signs."""
    (alice, bob, carol, dad), desc = named_p1(bin_dir, home, "t")
    assert register_named(carol, desc, f"{fp(alice)}=Alice", f"{fp(dad)}=Dad").returncode == 0
    psbt = embit_psbt(desc, [Coin(funding(desc, 0), 0, 0)], [(outside_address(), 400_000)])
    unsigned = tmp_path / "p.psbt"
    unsigned.write_bytes(psbt.serialize())
    written = carol.path.read_bytes()
    assert carol.sign(unsigned, args=("--out", str(tmp_path / "o.psbt")), check=False).returncode == 0
    for edit in ('"name" : "Dad"', '"name": "Dad"'):
        if edit.encode() in written:
            carol.path.write_bytes(written.replace(edit.encode(), edit.replace("Dad", "Eve").encode()))
            break
    else:
        raise AssertionError(written.decode())
    proc = carol.sign(unsigned, args=("--out", str(tmp_path / "o2.psbt")), check=False)
    assert proc.returncode == 3, proc.stderr
    assert b"tamper" in proc.stderr


def test_names_in_the_multisig_signatures_of_a_sortedmulti_wallet(bin_dir, home, tmp_path):
    """A wsh(sortedmulti) 2-of-3 wallet registered with a name for Alice: the review's MULTISIG SIGNATURES says who
    signed by name; the vault registered without names says the fingerprint only (control)."""
    vaults, keys = vaults_and_keys(bin_dir, home, ("alice-s", "bob-s", "carol-s"))
    alice, bob, carol = vaults
    desc = multisig_descriptor(keys)
    assert register_named(carol, desc, f"{fp(alice)}=Alice", f"{fp(bob)}=Bob").returncode == 0
    assert register(alice, desc, "team").returncode == 0
    psbt = embit_psbt(desc, [Coin(funding(desc, 0), 0, 0)], [(outside_address(), 400_000)])
    unsigned = tmp_path / "p.psbt"
    unsigned.write_bytes(psbt.serialize())
    alice.sign(unsigned, args=("--full", "--out", str(tmp_path / "a.psbt")))
    text = carol.sign(tmp_path / "a.psbt", args=("--out", str(tmp_path / "c.psbt"))).stderr.decode()
    line = next(x for x in text.splitlines() if "2 of 3 (multisig)" in x)
    assert f"signed by Alice ({fp(alice)}); not yet: " in line, text
    assert f"Bob ({fp(bob)})" in line and f"{fp(carol)} (this vault)" in line, line
    # Control: Bob's vault, registered without names, reviews the same PSBT with fingerprints only. (Alice's own
    # signed answer fed back to her is refused as "the signed answer you wrote", issue 27.)
    assert register(bob, desc, "team").returncode == 0
    again = bob.sign(tmp_path / "a.psbt", args=("--out", str(tmp_path / "b.psbt"))).stderr.decode()
    assert f"signed by {fp(alice)}; not yet: " in again and f"{fp(bob)} (this vault)" in again, again
    assert "Alice" not in again and "Carol" not in again, again
    own = alice.sign(tmp_path / "a.psbt", args=("--out", str(tmp_path / "a2.psbt")), check=False)
    assert own.returncode == 2 and b"this is the signed answer you wrote" in own.stderr, own.stderr
