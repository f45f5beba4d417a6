"""ERC-7730 clear signing on the signer (issue 32): descriptors from the public registry (Tests/Vectors/erc7730,
see its PROVENANCE.md) are imported into the vault; a request they match is shown in words and signed to the same
signature as eth-account's; a request on another chain or contract stays blind and is refused without
--allow-blind. Each attack beside a control."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eth_account.messages import encode_typed_data
from test_eth_review import ACCOUNT, calldata, review_of, typed_request
from test_eth_signer import TXS, answer, restored_signer, sign_request, unsigned_bytes

REGISTRY = Path(__file__).resolve().parents[1] / "Vectors" / "erc7730" / "registry" / "registry"
AAVE = REGISTRY / "aave" / "calldata-lpv3.json"
UNISWAP = REGISTRY / "uniswap"
POOL = "0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2"  # Aave v3 pool on chain 1 (a deployment of the descriptor)
USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
OTHER_CONTRACT = "0x" + "42" * 20
PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
ROUTER = "0xE592427A0AEce92De3Edee1F18E0157C05861564"


@pytest.fixture
def signer(run, home):
    assert AAVE.is_file(), f"{AAVE} is missing: the registry files must be in Tests/Vectors/erc7730 (PROVENANCE.md)"
    return restored_signer(run, home, "pw-clear-signing")


def supply_tx(to: str = POOL, chain_id: int = 1) -> dict:
    data = calldata(
        "supply(address,uint256,address,uint16)",
        ["address", "uint256", "address", "uint16"],
        [USDC, 1_000_000_000, ACCOUNT.address, 0],
    )
    return dict(TXS["eip1559"], data=data, to=to, chainId=chain_id, gas=300_000)


def request_of(vectors, tx: dict) -> str:
    return sign_request(vectors, unsigned_bytes(tx), 4, tx["chainId"])[1]


def assert_signed_like_eth_account(vectors, proc, tx: dict) -> None:
    assert proc.returncode == 0, review_of(proc)
    expected = ACCOUNT.sign_transaction(tx)
    sig = answer(vectors, proc)[2]
    assert sig[:32] == expected.r.to_bytes(32, "big") and sig[32:64] == expected.s.to_bytes(32, "big")


def test_import_reviews_what_it_covers_and_list_remove(signer):
    # Control first: nothing stored.
    assert "No clear-signing descriptors stored" in signer("clear-signing", "list").stdout.decode()
    proc = signer("clear-signing", "import", str(AAVE), "--yes")
    assert proc.returncode == 0, review_of(proc)
    review = review_of(proc)
    assert "Descriptor: Aave DAO" in review and f"Contract: {POOL} on chain 1" in review
    assert "Shows: supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) → Supply" in review
    listing = signer("clear-signing", "list").stdout.decode()
    assert "1.\nDescriptor: Aave DAO" in listing
    # Importing the same file again replaces it (one entry, not two).
    assert signer("clear-signing", "import", str(AAVE), "--yes").returncode == 0
    assert "2." not in signer("clear-signing", "list").stdout.decode()
    # A number not in the list is refused; the right one removes it.
    assert signer("clear-signing", "remove", "2").returncode == 2
    assert signer("clear-signing", "remove", "1").returncode == 0
    assert "No clear-signing descriptors stored" in signer("clear-signing", "list").stdout.decode()


def test_import_refuses_another_major_version_and_stores_nothing(signer, tmp_path):
    text = AAVE.read_text().replace("erc7730-v2.schema.json", "erc7730-v3.schema.json")
    bad = tmp_path / "v3.json"
    bad.write_text(text)
    proc = signer("clear-signing", "import", str(bad), "--yes")
    assert proc.returncode == 2 and "version 3" in review_of(proc)
    assert "No clear-signing descriptors stored" in signer("clear-signing", "list").stdout.decode()
    # Without --yes and no terminal: nothing stored (exit 4).
    assert signer("clear-signing", "import", str(AAVE)).returncode == 4
    assert "No clear-signing descriptors stored" in signer("clear-signing", "list").stdout.decode()


def test_a_matching_descriptor_makes_an_aave_call_clear(signer, vectors):
    tx = supply_tx()
    # Control: without the descriptor the call is blind and refused.
    proc = signer("sign", "-", "--yes", input=request_of(vectors, tx))
    assert proc.returncode == 4 and "cannot decode" in review_of(proc)
    assert signer("clear-signing", "import", str(AAVE), "--yes").returncode == 0
    proc = signer("sign", "-", "--yes", input=request_of(vectors, tx))
    review = review_of(proc)
    assert "Intent: Supply" in review and "Descriptor by: Aave DAO" in review
    assert "Amount to supply: 1000 USDC" in review and f"Collateral recipient: {ACCOUNT.address}" in review
    assert "blind" not in review
    assert_signed_like_eth_account(vectors, proc, tx)
    # The journal records the call as the descriptor showed it.
    entries = json.loads(signer("audit", "--json", check=True).stdout)
    assert [e["call"] for e in entries] == ["clear signing: Supply"]


@pytest.mark.parametrize("where", ["other chain", "other contract"])
def test_a_descriptor_for_another_chain_or_contract_does_not_apply(signer, vectors, where):
    assert signer("clear-signing", "import", str(AAVE), "--yes").returncode == 0
    # The pool's address on chain 1 is not a deployment on chain 5; another address on chain 1 is none either.
    tx = supply_tx(chain_id=5) if where == "other chain" else supply_tx(to=OTHER_CONTRACT)
    proc = signer("sign", "-", "--yes", input=request_of(vectors, tx))
    assert proc.returncode == 4 and "cannot decode" in review_of(proc) and "Intent:" not in review_of(proc)
    proc = signer("sign", "-", "--yes", "--allow-blind", input=request_of(vectors, tx))
    assert "!!! blind signing (--allow-blind)" in review_of(proc)
    assert_signed_like_eth_account(vectors, proc, tx)


def permit2_single(chain_id: int = 1, contract: str = PERMIT2) -> dict:
    return {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "PermitDetails": [
                {"name": "token", "type": "address"},
                {"name": "amount", "type": "uint160"},
                {"name": "expiration", "type": "uint48"},
                {"name": "nonce", "type": "uint48"},
            ],
            "PermitSingle": [
                {"name": "details", "type": "PermitDetails"},
                {"name": "spender", "type": "address"},
                {"name": "sigDeadline", "type": "uint256"},
            ],
        },
        "primaryType": "PermitSingle",
        "domain": {"name": "Permit2", "chainId": chain_id, "verifyingContract": contract},
        "message": {
            "details": {"token": USDC, "amount": 2_500_000_000, "expiration": 1782864000, "nonce": 7},
            "spender": ROUTER,
            "sigDeadline": 1774915200,
        },
    }


def test_a_uniswap_permit2_message_is_shown_by_its_descriptor(signer, vectors):
    message = permit2_single()
    # Control: before the import, no descriptor lines.
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, message))
    assert proc.returncode == 0 and "Intent:" not in review_of(proc)
    assert signer("clear-signing", "import", str(UNISWAP), "--yes").returncode == 0
    proc = signer("sign", "-", "--yes", "--json", input=typed_request(vectors, message))
    assert proc.returncode == 0, review_of(proc)
    review = review_of(proc)
    assert "Intent: Authorize spending of token" in review and "Amount allowance: 2500 USDC" in review
    assert f"Spender: {ROUTER}" in review and "Approval expires: 2026-07-01 12:00:00 AM UTC" in review
    expected = ACCOUNT.sign_message(encode_typed_data(full_message=message)).signature
    assert bytes.fromhex(json.loads(proc.stdout)["signature"]) == bytes(expected)
    # The same message for another contract is not shown by the descriptor.
    other = permit2_single(contract=OTHER_CONTRACT)
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, other))
    assert proc.returncode == 0 and "Intent:" not in review_of(proc)
    # Nor is it on a chain the descriptor does not name (Permit2's address, chain 5: not one of its deployments);
    # it is signed as eth-account signs it, without the descriptor's lines.
    goerli = permit2_single(chain_id=5)
    proc = signer("sign", "-", "--yes", "--json", input=typed_request(vectors, goerli, chain_id=5))
    assert proc.returncode == 0 and "Intent:" not in review_of(proc), review_of(proc)
    expected = ACCOUNT.sign_message(encode_typed_data(full_message=goerli)).signature
    assert bytes.fromhex(json.loads(proc.stdout)["signature"]) == bytes(expected)
