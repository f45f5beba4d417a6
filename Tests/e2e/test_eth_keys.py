"""`airlock-signer key export|import|list` (issue 15 item 4) against peers not written here: eth-keyfile (PyPI) decrypts
a keystore v3 file the signer exports to the same key, and a keystore eth-keyfile makes imports and then signs an
EIP-4527 request naming its address (eth-account recovers the signer). Geth's keystore v3 vectors (pbkdf2, scrypt,
30- and 31-byte keys; Tests/Vectors/ethereum/geth_keystore_v3_test_vector.json) import to the addresses of their keys.
The refusals: WIF/hex without --show-secret, export without a terminal and without --yes (exit 4), a WIF/hex to a file
(exit 1), a wrong keystore password (exit 3), a key imported twice (exit 4), an edited keystore (exit 3)."""

from __future__ import annotations

import json

import cbor2
import eth_keyfile
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from test_eth_signer import MNEMONIC, answer, restored_signer, ur_text

Account.enable_unaudited_hdwallet_features()


@pytest.fixture
def signer(run, home):
    return restored_signer(run, home, "pw-keys")


def _file(home, name: str, text: str):
    path = home.root / name
    path.write_text(text)
    return str(path)


def test_exported_keystore_decrypts_with_eth_keyfile(signer, home):
    out = home.root / "account3.json"
    ks_pw = _file(home, "ks.txt", "keystore password\n")
    got = json.loads(
        signer(
            "key",
            "export",
            "--chain",
            "eth",
            "--index",
            "3",
            "--out",
            str(out),
            "--keystore-password-file",
            ks_pw,
            "--yes",
            "--json",
            check=True,
        ).stdout
    )
    expected = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/3")
    assert got["address"] == expected.address and got["written"] == [str(out)] and "secret" not in got
    keystore = json.loads(out.read_text())
    # Geth's standard parameters, as the issue asks.
    assert keystore["version"] == 3 and keystore["crypto"]["kdf"] == "scrypt"
    assert {k: keystore["crypto"]["kdfparams"][k] for k in ("n", "r", "p", "dklen")} == {
        "n": 262144,
        "r": 8,
        "p": 1,
        "dklen": 32,
    }
    assert keystore["crypto"]["cipher"] == "aes-128-ctr"
    assert (out.stat().st_mode & 0o777) == 0o600
    assert eth_keyfile.decode_keyfile_json(keystore, b"keystore password") == expected.key
    # Control: the wrong password does not decrypt it.
    with pytest.raises(ValueError):
        eth_keyfile.decode_keyfile_json(keystore, b"keystore passwort")


def test_pbkdf2_keystore_decrypts_with_eth_keyfile(signer, home):
    ks_pw = _file(home, "ks.txt", "pb\n")
    got = json.loads(
        signer(
            "key",
            "export",
            "--chain",
            "eth",
            "--kdf",
            "pbkdf2",
            "--keystore-password-file",
            ks_pw,
            "--yes",
            "--json",
            check=True,
        ).stdout
    )
    keystore = json.loads(got["keystore"])
    assert keystore["crypto"]["kdf"] == "pbkdf2" and keystore["crypto"]["kdfparams"]["prf"] == "hmac-sha256"
    expected = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0")
    assert eth_keyfile.decode_keyfile_json(keystore, b"pb") == expected.key


@pytest.mark.parametrize("kdf", ["scrypt", "pbkdf2"])
def test_eth_keyfile_keystore_imports_and_signs(signer, home, vectors, kdf):
    account = Account.create()
    keystore = eth_keyfile.create_keyfile_json(account.key, b"imported pw", kdf=kdf, iterations=2**12)
    ks = _file(home, "imported.json", json.dumps(keystore))
    ks_pw = _file(home, "ks.txt", "imported pw\n")
    out = json.loads(
        signer(
            "key", "import", ks, "--keystore-password-file", ks_pw, "--label", "from eth-keyfile", "--json", check=True
        ).stdout
    )
    assert out == {"chain": "eth", "address": account.address, "label": "from eth-keyfile"}
    listed = json.loads(signer("key", "list", "--json", check=True).stdout)["keys"]
    assert listed == [{"chain": "eth", "address": account.address, "label": "from eth-keyfile"}]
    info = json.loads(signer("info", "--json", check=True).stdout)
    assert info["imported_keys"] == listed
    # A request naming the imported address (no seed path, as a watch-only wallet sends for an imported account).
    message = b"signed by an imported key"
    fields = {
        1: cbor2.CBORTag(37, b"\x01" * 16),
        2: message,
        3: 3,
        5: cbor2.CBORTag(304, {1: []}),
        6: bytes.fromhex(account.address[2:]),
    }
    text = ur_text(vectors, "eth-sign-request", cbor2.dumps(fields))
    sig = answer(vectors, signer("sign", "-", "--yes", input=text))[2]
    assert Account.recover_message(encode_defunct(primitive=message), signature=sig) == account.address
    report = json.loads(signer("sign", "-", "--yes", "--json", input=text, check=True).stdout)
    assert report["from"] == account.address
    assert {"label": "Key", "value": "imported (from eth-keyfile)"} in report["review"]
    # Control: the same request naming an address no key here has is refused.
    other = Account.create().address
    fields[6] = bytes.fromhex(other[2:])
    proc = signer("sign", "-", "--yes", input=ur_text(vectors, "eth-sign-request", cbor2.dumps(fields)))
    assert proc.returncode == 4 and b"no imported key" in proc.stderr
    # The imported key exports back as hex, equal to the key eth-keyfile held.
    hexkey = (
        signer(
            "key",
            "export",
            "--chain",
            "eth",
            "--address",
            account.address.lower(),
            "--format",
            "hex",
            "--show-secret",
            "--yes",
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    assert bytes.fromhex(hexkey[2:]) == account.key


def test_geth_keystore_vectors_import(signer, home, vectors):
    cases = json.loads((vectors / "ethereum" / "geth_keystore_v3_test_vector.json").read_text())
    assert set(cases) == {"wikipage_test_vector_scrypt", "wikipage_test_vector_pbkdf2", "31_byte_key", "30_byte_key"}
    for name, case in cases.items():
        ks = _file(home, f"{name}.json", json.dumps(case["json"]))
        pw = _file(home, f"{name}.pw", case["password"] + "\n")
        expected = Account.from_key(bytes.fromhex(case["priv"].rjust(64, "0"))).address
        if name == "wikipage_test_vector_pbkdf2":
            # The same key as the scrypt case: a second import is refused (exit 4).
            proc = signer("key", "import", ks, "--keystore-password-file", pw)
            assert proc.returncode == 4 and b"already imported" in proc.stderr
            continue
        out = json.loads(signer("key", "import", ks, "--keystore-password-file", pw, "--json", check=True).stdout)
        assert out["address"] == expected
        wrong = _file(home, "wrong.pw", case["password"] + "x\n")
        assert signer("key", "import", ks, "--keystore-password-file", wrong).returncode == 3
    assert len(json.loads(signer("key", "list", "--json", check=True).stdout)["keys"]) == 3


def test_pbkdf2_vector_imports_alone(signer, home, vectors):
    case = json.loads((vectors / "ethereum" / "geth_keystore_v3_test_vector.json").read_text())[
        "wikipage_test_vector_pbkdf2"
    ]
    ks = _file(home, "pb.json", json.dumps(case["json"]))
    pw = _file(home, "pb.pw", case["password"] + "\n")
    out = json.loads(signer("key", "import", ks, "--keystore-password-file", pw, "--json", check=True).stdout)
    assert out["address"] == Account.from_key(bytes.fromhex(case["priv"])).address


def test_edited_keystore_is_refused(signer, home):
    account = Account.create()
    keystore = eth_keyfile.create_keyfile_json(account.key, b"pw", kdf="pbkdf2", iterations=1000)
    pw = _file(home, "ks.pw", "pw\n")
    # Attack: one ciphertext byte changed (the MAC no longer matches): exit 3, nothing imported.
    edited = json.loads(json.dumps(keystore))
    c = edited["crypto"]["ciphertext"]
    edited["crypto"]["ciphertext"] = c[:-2] + f"{int(c[-2:], 16) ^ 1:02x}"
    assert (
        signer(
            "key", "import", _file(home, "edited.json", json.dumps(edited)), "--keystore-password-file", pw
        ).returncode
        == 3
    )
    # Attack: the address field names another account: exit 2.
    lying = dict(keystore, address=Account.create().address[2:].lower())
    proc = signer("key", "import", _file(home, "lying.json", json.dumps(lying)), "--keystore-password-file", pw)
    assert proc.returncode == 2 and b"says address" in proc.stderr
    # Attack: scrypt parameters that would take 16 GiB: refused before any work (exit 2).
    costly = json.loads(json.dumps(keystore))
    costly["crypto"]["kdf"] = "scrypt"
    costly["crypto"]["kdfparams"] = {"dklen": 32, "n": 2**24, "r": 8, "p": 1, "salt": "00" * 32}
    proc = signer("key", "import", _file(home, "costly.json", json.dumps(costly)), "--keystore-password-file", pw)
    assert proc.returncode == 2 and b"refused" in proc.stderr
    assert json.loads(signer("key", "list", "--json", check=True).stdout)["keys"] == []
    # Control: the untouched file imports.
    assert (
        signer(
            "key", "import", _file(home, "good.json", json.dumps(keystore)), "--keystore-password-file", pw
        ).returncode
        == 0
    )


def test_bitcoin_wif_and_hex(signer, home):
    # BIP84's own test vector (the same mnemonic): m/84'/0'/0'/0/0 has this WIF.
    wif = "KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d"
    out = json.loads(
        signer("key", "export", "--chain", "btc", "--index", "0", "--show-secret", "--yes", "--json", check=True).stdout
    )
    assert out["secret"] == wif and out["address"] == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
    hexkey = json.loads(
        signer(
            "key",
            "export",
            "--chain",
            "btc",
            "--index",
            "0",
            "--format",
            "hex",
            "--show-secret",
            "--yes",
            "--json",
            check=True,
        ).stdout
    )["secret"]
    assert hexkey == "4604b4b710fe91f584fff084e1a9159fe4f8408fff380596a604948474ce4fa3"
    # Import a WIF of another key and see it listed by address.
    other = "L1aW4aubDFB7yfras2S1mN3bqg9nwySY8nkoLmJebSLD5BWv3ENZ"
    out = json.loads(signer("key", "import", "-", "--label", "paper", "--json", input=other + "\n", check=True).stdout)
    assert out["chain"] == "btc" and out["address"].startswith("bc1q")
    assert signer("key", "import", "-", input=other + "\n").returncode == 4  # twice
    # A WIF for another network is refused (exit 2).
    testnet = "cMahea7zqjxrtgAbB7LSGbcQUr1uX1ojuat9jZodMN87JcbXMTcA"
    assert signer("key", "import", "-", input=testnet + "\n").returncode == 2


def test_export_refusals_with_controls(signer, home):
    base = ["key", "export", "--chain", "eth", "--format", "hex"]
    # No --show-secret: exit 4, nothing printed.
    proc = signer(*base, "--yes")
    assert proc.returncode == 4 and proc.stdout == b""
    # No terminal and no --yes: exit 4.
    proc = signer(*base, "--show-secret")
    assert proc.returncode == 4 and b"no terminal" in proc.stderr and proc.stdout == b""
    # WIF or hex to a file: exit 1, no file.
    target = home.root / "leak.txt"
    assert signer(*base, "--show-secret", "--yes", "--out", str(target)).returncode == 1
    assert not target.exists()
    # A keystore without a terminal and without --yes: exit 4, no file.
    ks_pw = _file(home, "ks.txt", "x\n")
    out = home.root / "k.json"
    assert (
        signer("key", "export", "--chain", "eth", "--out", str(out), "--keystore-password-file", ks_pw).returncode == 4
    )
    assert not out.exists()
    # Control: with both flags the key is printed.
    expected = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0")
    proc = signer(*base, "--show-secret", "--yes", check=True)
    assert bytes.fromhex(proc.stdout.decode().strip()[2:]) == expected.key
    # A hex key needs --chain (exit 1).
    assert signer("key", "import", "-", input=expected.key.hex() + "\n").returncode == 1
