"""Issue 26, class 6: registration analyses every spending path, `wsh` and `tr` alike (the key path and every leaf),
and refuses a wallet in which this vault holds two or more keys. Descriptors are assembled from keys embit derives
(strangers, and this vault's own seed at other accounts); each attack sits beside a control that registers.
"""

from __future__ import annotations

import json

from embit import bip32, bip39
from embit.networks import NETWORKS
from signer_psbt import Vault

NET = NETWORKS["regtest"]
H = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"


def stranger(seed: bytes, path: str = "m/48h/1h/0h/2h") -> tuple[str, str]:
    """A key of nobody's vault: `[fp/path]tpub…` and its fingerprint."""
    root = bip32.HDKey.from_seed(seed, version=NET["xprv"])
    xpub = root.derive(path).to_public().to_base58(version=NET["xpub"])
    fp = root.my_fingerprint.hex()
    return f"[{fp}/{path[2:]}]{xpub}", fp


def own_key(vault: Vault, path: str, fingerprint: str | None = None) -> str:
    """This vault's seed's key at `path` (embit), under its own or a made-up origin fingerprint."""
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(vault.mnemonic), version=NET["xprv"])
    xpub = root.derive(path).to_public().to_base58(version=NET["xpub"])
    return f"[{fingerprint or root.my_fingerprint.hex()}/{path[2:]}]{xpub}"


_names = iter(range(1_000_000))


def register(vault: Vault, desc: str, *args: str):
    name = f"w{next(_names)}"
    return vault.run("multisig", "register", "-", "--name", name, "--yes", "--json", *args, input=desc.encode())


def registered(proc) -> tuple[dict, str]:
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout), proc.stderr.decode()


def listed(vault: Vault) -> list:
    return json.loads(vault.run("multisig", "list", "--json", check=True).stdout)


def r(key: str) -> str:
    return key + "/<0;1>/*"


def test_a_taproot_leaf_a_stranger_spends_alone_is_named_and_warned(bin_dir, home):
    me = Vault(bin_dir, home.env, home.root, "me")
    mine = me.export("wsh-multi")
    (b, _), (c, _), (s, s_fp) = stranger(b"\x01" * 32), stranger(b"\x02" * 32), stranger(b"\x03" * 32)
    # Attack: leaf 1 lets a stranger's key spend alone, at any time (the old check looked at wsh only).
    out, review = registered(
        register(me, f"tr({H},{{or_d(pk({r(s)}),pk({r(mine)})),multi_a(2,{r(mine)},{r(b)},{r(c)})}})")
    )
    assert f"leaf 1: key {s_fp} alone, at any time" in out["paths_without_this_vault"]
    assert any(f"key {s_fp} alone, at any time" in w and "WITHOUT THIS VAULT" in w for w in out["warnings"])
    assert (
        "spending paths WITHOUT this vault:" in review
        and f"! WITHOUT THIS VAULT: leaf 1: key {s_fp} alone, at any time" in review
    )
    # The same leaf behind a timelock is named, not warned about ("Dad alone after 10 blocks").
    out, review = registered(
        register(me, f"tr({H},{{and_v(v:pk({r(s)}),older(10)),multi_a(2,{r(mine)},{r(b)},{r(c)})}})")
    )
    assert f"leaf 1: key {s_fp} alone after 10 blocks (about 100 minutes)" in out["paths_without_this_vault"]
    assert not any("WITHOUT THIS VAULT" in w for w in out["warnings"]), out["warnings"]
    # A named cosigner is named in the path.
    out, _ = registered(
        register(
            me,
            f"tr({H},{{and_v(v:pk({r(s)}),older(12)),multi_a(2,{r(mine)},{r(b)},{r(c)})}})",
            "--cosigner",
            f"{s_fp}=Dad",
        )
    )
    assert f"leaf 1: Dad ({s_fp}) alone after 12 blocks (about 2 hours)" in out["paths_without_this_vault"]


def test_a_wsh_policy_a_stranger_spends_alone_is_warned(bin_dir, home):
    me = Vault(bin_dir, home.env, home.root, "me")
    mine = me.export("wsh-multi")
    (b, _), (c, _), (s, s_fp) = stranger(b"\x01" * 32), stranger(b"\x02" * 32), stranger(b"\x03" * 32)
    out, review = registered(register(me, f"wsh(or_d(multi(2,{r(mine)},{r(b)},{r(c)}),pk({r(s)})))"))
    assert f"key {s_fp} alone, at any time" in out["paths_without_this_vault"]
    assert any("WITHOUT THIS VAULT" in w for w in out["warnings"]), out["warnings"]


def test_a_normal_2_of_3_registers_with_its_paths_named(bin_dir, home):
    """Controls: wsh and tr 2-of-3 register; the path the two others take together is named, nothing is warned."""
    me = Vault(bin_dir, home.env, home.root, "me")
    mine = me.export("wsh-multi")
    (b, b_fp), (c, c_fp) = stranger(b"\x01" * 32), stranger(b"\x02" * 32)
    for desc in (
        f"wsh(sortedmulti(2,{r(mine)},{r(b)},{r(c)}))",
        f"tr({H},sortedmulti_a(2,{r(mine)},{r(b)},{r(c)}))",
    ):
        out, _ = registered(register(me, desc))
        assert out["warnings"] == [], out["warnings"]
        (path,) = out["paths_without_this_vault"]
        assert "together, at any time" in path and b_fp in path and c_fp in path
    assert len(listed(me)) == 2


def test_a_wallet_holding_two_keys_of_this_vault_is_refused(bin_dir, home):
    me = Vault(bin_dir, home.env, home.root, "me")
    account0 = me.export("wsh-multi")
    account1 = me.run("export", "--script", "wsh-multi", "--account", "1", check=True).stdout.decode().strip()
    (c, _) = stranger(b"\x02" * 32)
    attack = f"wsh(sortedmulti(2,{r(account0)},{r(account1)},{r(c)}))"
    proc = register(me, attack)
    assert proc.returncode == 4, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "this vault holds 2 of the wallet's keys" in err and "--allow-own-keys" in err
    assert "ONE SIGNER (this vault) COMPLETES THE SPEND" in err
    assert json.loads(proc.stdout)["error"]["code"] == 4
    assert listed(me) == []  # nothing stored
    # The second key under a made-up fingerprint is found by deriving this seed's BIP48 and BIP87 accounts.
    for path in ("m/48h/1h/7h/2h", "m/48h/1h/99h/1h", "m/87h/1h/3h", "m/45h"):
        disguised = own_key(me, path, fingerprint="deadbeef")
        proc = register(me, f"wsh(sortedmulti(2,{r(account0)},{r(disguised)},{r(c)}))")
        assert proc.returncode == 4, (path, proc.stderr.decode())
        assert "this seed's key at" in proc.stderr.decode()
    # The same in a taproot wallet.
    proc = register(me, f"tr({H},multi_a(2,{r(account0)},{r(account1)},{r(c)}))")
    assert proc.returncode == 4, proc.stderr.decode()
    assert listed(me) == []
    # --allow-own-keys registers it, with the warning.
    out, review = registered(register(me, attack, "--allow-own-keys"))
    assert any("ONE SIGNER (this vault) COMPLETES THE SPEND" in w for w in out["warnings"])
    assert "registered anyway (--allow-own-keys)" in review
    # Control: one key of this vault, two strangers' (a key past account 99 is not searched, and not this vault's).
    (b, _) = stranger(b"\x01" * 32)
    out, _ = registered(register(me, f"wsh(sortedmulti(2,{r(account0)},{r(b)},{r(c)}))"))
    assert out["warnings"] == []
    assert len(listed(me)) == 2
