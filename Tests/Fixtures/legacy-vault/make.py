"""Makes the legacy vault fixture (Tests/Fixtures/legacy-vault) with an older `airlock-signer` binary.

Usage: .venv/bin/python Tests/Fixtures/legacy-vault/make.py PATH/TO/airlock-signer

The vault is restored from BIP39's `abandon ... about` mnemonic (regtest, --kdf-memory 64, password `legacy-pw`),
holds one Ethereum token, and its journal has three entries: two wpkh spends (PSBTs built by embit from made-up
funding transactions) and an Ethereum personal message (an EIP-4527 request built as test_eth_signer.py does). SignerTests/LegacyVaultFixtureTests opens it with the current code, verifies the journal and compares the
files this build writes for the same fields byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
E2E = HERE.parent.parent / "e2e"
sys.path.insert(0, str(E2E))

from embit.descriptor import Descriptor  # noqa: E402
from embit.transaction import Transaction, TransactionInput, TransactionOutput  # noqa: E402
from signer_psbt import Coin, embit_psbt  # noqa: E402
from test_eth_signer import sign_request  # noqa: E402

MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
PASSWORD = "legacy-pw"
OUTSIDE = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
TOKEN = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"


def main(binary: str) -> None:
    vault = HERE / "vault.airlock"
    for old in (vault, Path(str(vault) + ".audit")):
        old.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pw = root / "pw.txt"
        pw.write_text(PASSWORD + "\n")
        words = root / "words.txt"
        words.write_text(MNEMONIC + "\n")

        def signer(*args: str, input: bytes | None = None) -> str:
            proc = subprocess.run(
                [binary, *args, "--vault", str(vault), "--password-file", str(pw)],
                input=input,
                capture_output=True,
                cwd=root,
                env={"HOME": str(root), "PATH": "/usr/bin:/bin", "AIRLOCK_ALLOW_NETWORK": "1"},
                check=False,
            )
            assert proc.returncode == 0, f"{args}: {proc.stderr.decode()}"
            return proc.stdout.decode()

        signer("restore", "--mnemonic-file", str(words), "--network", "regtest", "--kdf-memory", "64")
        signer("token", "add", TOKEN, "--chain-id", "1", "--symbol", "USDC", "--decimals", "6", "--yes")
        desc = json.loads(signer("export", "--format", "descriptor", "--script", "wpkh", "--json"))["accounts"][0][
            "descriptor"
        ]
        d = Descriptor.from_string(desc.split("#")[0])
        for n, amount in enumerate([200_000, 150_000]):
            funding = Transaction(
                version=2,
                vin=[TransactionInput(bytes([n + 1] * 32), 0)],
                vout=[TransactionOutput(500_000, d.derive(n, branch_index=0).script_pubkey())],
            )
            psbt = embit_psbt(desc, [Coin(funding, 0, n)], [(OUTSIDE, amount)], change=(n, 500_000 - amount - 2_000))
            path = root / f"tx{n}.psbt"
            path.write_bytes(psbt.serialize())
            signer("sign", str(path), "--yes", "--out", str(root / f"signed{n}.psbt"))
        _, text = sign_request(E2E.parent / "Vectors", "Airlock ✓ legacy journal".encode(), 3, 1)
        signer("sign", "-", "--yes", input=text.encode())
        print(signer("audit", "--verify"))


if __name__ == "__main__":
    main(sys.argv[1])
