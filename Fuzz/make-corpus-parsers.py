#!/usr/bin/env python3
"""Writes the seed corpora of the parser targets added by issue 35 (docs/fuzzing.md), from upstream vectors under
Tests/Vectors and from tools not written here:

- FuzzKeystore: the Web3 Secret Storage wiki's scrypt and PBKDF2 files and Geth's short-key files
  (Tests/Vectors/ethereum/geth_keystore_v3_test_vector.json), and files eth-account writes with a cheap KDF under the
  password the target uses ("fuzz"), so that inputs reach the MAC check and the key.
- FuzzPaymentURI: the BIP21 examples (bip-0021.mediawiki), the EIP-681 examples (eip-681.md) and the EIP-55
  addresses (Tests/Vectors/ethereum/eip55_checksum_addresses.json).
- FuzzDescriptor: every descriptor of the BIP380-390 vectors (valid and invalid) and every miniscript of Bitcoin
  Core's miniscript tests (Tests/Vectors/descriptors, Tests/Vectors/miniscript).
- FuzzBSMS: BIP129's key and descriptor records, and its encrypted records (token a54044308ceac9b7)
  (Tests/Vectors/bsms/bip129_vectors.json).
- FuzzLabels: the BIP329 example export (bip-0329.mediawiki), whole and line by line.
- FuzzSeedBackup: SeedSigner's SeedQR vectors (digits and compact bytes) and the SLIP-39 vectors (the shares of each
  case, one a line) (Tests/Vectors/seedqr, Tests/Vectors/slip39).
- FuzzImage: QR codes drawn by segno and turned into JPEG and (animated) GIF by ImageMagick's `convert`, kept small.

Files are named by the SHA-256 of their content; existing files are left alone (crashers stay)."""

import hashlib
import json
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
VECTORS = ROOT / "Tests" / "Vectors"
CORPUS = ROOT / "Fuzz" / "corpus"


def write(target: str, data: bytes | str) -> None:
    if isinstance(data, str):
        data = data.encode()
    out = CORPUS / target
    out.mkdir(parents=True, exist_ok=True)
    (out / hashlib.sha256(data).hexdigest()[:16]).write_bytes(data)


def load(path: str):
    return json.loads((VECTORS / path).read_text())


def keystore() -> None:
    from eth_account import Account

    for case in load("ethereum/geth_keystore_v3_test_vector.json").values():
        write("FuzzKeystore", json.dumps(case["json"]))
    key = bytes(range(1, 33))
    write("FuzzKeystore", json.dumps(Account.encrypt(key, "fuzz", kdf="scrypt", iterations=16)))
    write("FuzzKeystore", json.dumps(Account.encrypt(key, "fuzz", kdf="pbkdf2", iterations=16)))


BIP21 = [
    "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W",
    "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?label=Luke-Jr",
    "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=20.3&label=Luke-Jr",
    "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=50&label=Luke-Jr&message=Donation%20for%20project%20xyz",
    "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?req-somethingyoudontunderstand=50&req-somethingelseyoudontget=999",
    "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?somethingyoudontunderstand=50&somethingelseyoudontget=999",
    "BITCOIN:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ?amount=0.001",
]
EIP681 = [
    "ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359?value=2.014e18",
    "ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1",
]


def payment_uris() -> None:
    for uri in BIP21 + EIP681:
        write("FuzzPaymentURI", uri)
    for case in load("ethereum/eip55_checksum_addresses.json")["cases"][:8]:
        write("FuzzPaymentURI", "ethereum:" + case["address"])


def walk_strings(value, key: str):
    """Every string under `key` anywhere in a JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key and isinstance(v, str):
                yield v
            else:
                yield from walk_strings(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from walk_strings(v, key)


def descriptors() -> None:
    for path in sorted((VECTORS / "descriptors").glob("*.json")):
        for text in walk_strings(json.loads(path.read_text()), "descriptor"):
            write("FuzzDescriptor", text)
    for path in sorted((VECTORS / "miniscript").glob("*.json")):
        data = json.loads(path.read_text())
        for text in list(walk_strings(data, "miniscript"))[:150]:
            write("FuzzDescriptor", text)
        for name in ("not_sane", "sane", "not_valid"):
            for item in data.get(name, [])[:20]:
                if isinstance(item, str):
                    write("FuzzDescriptor", item)


def bsms() -> None:
    for mode in load("bsms/bip129_vectors.json")["modes"]:
        write("FuzzBSMS", mode["descriptor_record"])
        for signer in mode["signers"]:
            write("FuzzBSMS", signer["key_record"])
        for record in mode["encrypted"]:
            write("FuzzBSMS", record["data"])


BIP329 = [
    '{ "type": "tx", "ref": "f91d0a8a78462bc59398f2c5d7a84fcff491c26ba54c4833478b202796c8aafd", "label": "Transaction", "origin": "wpkh([d34db33f/84\'/0\'/0\'])" }',
    '{ "type": "addr", "ref": "bc1q34aq5drpuwy3wgl9lhup9892qp6svr8ldzyy7c", "label": "Address" }',
    '{ "type": "pubkey", "ref": "0283409659355b6d1cc3c32decd5d561abaac86c37a353b52895a5e6c196d6f448", "label": "Public Key" }',
    '{ "type": "input", "ref": "f91d0a8a78462bc59398f2c5d7a84fcff491c26ba54c4833478b202796c8aafd:0", "label": "Input" }',
    '{ "type": "output", "ref": "f91d0a8a78462bc59398f2c5d7a84fcff491c26ba54c4833478b202796c8aafd:1", "label": "Output", "spendable": false }',
    '{ "type": "xpub", "ref": "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8", "label": "Extended Public Key" }',
    '{ "type": "tx", "ref": "f546156d9044844e02b181026a1a407abfca62e7ea1159f87bbeaa77b4286c74", "label": "Account #1 Transaction", "origin": "wpkh([d34db33f/84\'/0\'/1\'])" }',
]


def labels() -> None:
    write("FuzzLabels", "\n".join(BIP329) + "\n")
    for line in BIP329:
        write("FuzzLabels", line)


def seed_backups() -> None:
    for vector in load("seedqr/seedqr_vectors.json")["vectors"]:
        write("FuzzSeedBackup", vector["standard_digits"])
        bits = vector["compact_bits"]
        write("FuzzSeedBackup", int(bits, 2).to_bytes(len(bits) // 8, "big"))
    for case in load("slip39/vectors.json")[:24]:
        write("FuzzSeedBackup", "\n".join(case[1]))


def images() -> None:
    import segno

    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        for n, text in enumerate(
            ["ur:bytes/hdcxlkahssqzwfvslofzoxwkrewngotktbmwjkwdcmnefsaaehrlolkskncnktlbaypkvoonhknt", "B$2C0100"]
        ):
            segno.make(text, micro=False).save(str(work / f"code{n}.png"), scale=2, border=2)
        subprocess.run(["convert", "code0.png", "-quality", "60", "code0.jpg"], cwd=work, check=True)
        subprocess.run(["convert", "code0.png", "code0.gif"], cwd=work, check=True)
        subprocess.run(
            ["convert", "-delay", "20", "code0.png", "code1.png", "-loop", "0", "animation.gif"], cwd=work, check=True
        )
        for name in ("code0.jpg", "code0.gif", "animation.gif"):
            write("FuzzImage", (work / name).read_bytes())


def main() -> None:
    keystore()
    payment_uris()
    descriptors()
    bsms()
    labels()
    seed_backups()
    images()
    for target in (
        "FuzzKeystore",
        "FuzzPaymentURI",
        "FuzzDescriptor",
        "FuzzBSMS",
        "FuzzLabels",
        "FuzzSeedBackup",
        "FuzzImage",
    ):
        files = list((CORPUS / target).iterdir())
        print(f"{target}: {len(files)} files, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
