"""What you review is what you sign, Ethereum side (issue 26, docs/threat-model.md): requests built by eth-account,
eth-abi and eth-utils (peers not written here), each attack beside a control that signs.

Classes: untrusted text shown escaped and announced (also through a real terminal, tmux); the review before any
question under --json; EIP-712 data that eth-account refuses is refused, data it signs is signed to the same
signature; approvals judged by effect; blind signing only with --allow-blind; the signer's token list; one strict
JSON parser for every JSON the signer reads."""

from __future__ import annotations

import copy
import json

import pytest
from eth_abi import encode
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from eth_utils import function_signature_to_4byte_selector, to_checksum_address
from terminal import TmuxSession, answers, run_in_pty, shell_line
from test_eth_signer import MNEMONIC, TXS, answer, restored_signer, sign_request, unsigned_bytes

ACCOUNT = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0")
SPENDER = to_checksum_address("0x" + "ee" * 20)
OTHER = to_checksum_address("0x" + "35" * 20)
TOKEN = to_checksum_address("0x" + "ab" * 20)
USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3"


@pytest.fixture
def signer(run, home):
    return restored_signer(run, home, "pw-eth-review")


def calldata(signature: str, types: list[str], values: list) -> str:
    return "0x" + (function_signature_to_4byte_selector(signature) + encode(types, values)).hex()


def tx_request(vectors, data: str, to: str = TOKEN, chain_id: int = 1) -> str:
    tx = dict(TXS["eip1559"], data=data, to=to, chainId=chain_id)
    return sign_request(vectors, unsigned_bytes(tx), 4, chain_id)[1]


def typed_request(vectors, data, chain_id=1) -> str:
    text = data if isinstance(data, (bytes, str)) else json.dumps(data)
    return sign_request(vectors, text.encode() if isinstance(text, str) else text, 2, chain_id)[1]


def review_of(proc) -> str:
    return proc.stderr.decode()


# --- 1. Untrusted text -------------------------------------------------------------------------------------------

ATTACK_TEXTS = {
    "erase lines": "Shop\x1b[1A\x1b[2K\x1b[1A\x1b[2K",
    "clear screen": "Shop\x1b[2J\x1b[H",
    "bidi override": "\u202emoc.elgoog",
    "carriage return": "Shop\rSafe",
    "zero width": "goo\u200bgle.com",
    "tag characters": "Shop\U000e0041\U000e0042",
}


def mail(name: str) -> dict:
    return {
        "types": {
            "EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
            "Note": [{"name": "text", "type": "string"}, {"name": "to", "type": "address"}],
        },
        "primaryType": "Note",
        "domain": {"name": name, "chainId": 1},
        "message": {"text": name, "to": SPENDER},
    }


@pytest.mark.parametrize("case", sorted(ATTACK_TEXTS))
def test_hidden_characters_are_escaped_and_announced(signer, vectors, case):
    text = ATTACK_TEXTS[case]
    proc = signer("sign", "-", "--yes", "--json", input=typed_request(vectors, mail(text)))
    assert proc.returncode == 0, proc.stderr
    stderr = review_of(proc)
    # Nothing that moves the cursor or changes direction reaches the terminal; the review says so.
    for ch in ("\x1b", "\r", "\u202e", "\u200b", "\U000e0041"):
        assert ch not in stderr
    assert "!!! some text held hidden characters" in stderr
    assert f"to: {SPENDER}" in stderr
    out = json.loads(proc.stdout)
    assert out["hidden_characters"] is True
    line = next(item for item in out["review"] if item["label"] == "Domain name")
    assert line["value"] == text and line["hidden_characters"] is True  # the data itself is unchanged
    # The signature is eth-account's for the same data.
    expected = ACCOUNT.sign_message(encode_typed_data(full_message=mail(text))).signature
    assert bytes.fromhex(out["signature"]) == bytes(expected)


def test_plain_text_is_shown_as_is(signer, vectors):
    proc = signer("sign", "-", "--yes", "--json", input=typed_request(vectors, mail("Shop")))
    assert proc.returncode == 0
    assert "hidden characters" not in review_of(proc)
    out = json.loads(proc.stdout)
    assert out["hidden_characters"] is False and "Domain name: Shop" in review_of(proc)


def test_origin_and_personal_message_are_escaped(signer, vectors):
    # A multi-line readable message keeps its lines; a direction override in it is escaped and announced.
    message = "Sign in to example.org\nNonce: 42\n\u202eevil".encode()
    request = sign_request(vectors, message, 3, 1)[1]
    proc = signer("sign", "-", "--yes", input=request)
    assert proc.returncode == 0
    assert "Message: Sign in to example.org\nNonce: 42\n\\u202eevil" in review_of(proc)
    assert "hidden characters" in review_of(proc)
    sig = answer(vectors, proc)[2]
    assert Account.recover_message(encode_defunct(primitive=message), signature=sig) == ACCOUNT.address
    # The request's origin (field 7) is untrusted text too; the control origin "pytest" is shown plainly.
    assert "Origin: pytest" in review_of(proc)


# --- 2. The review before any question ---------------------------------------------------------------------------


def run_at_prompt(bin_dir, home, args: list[str], reply: str) -> tuple[int, str]:
    """Runs the signer with a pty as its terminal, answers `reply` to the question, returns (exit, screen)."""
    return run_in_pty([str(bin_dir / "airlock-signer"), *args], home.root, home.env, answers("[y/N]", reply))


@pytest.mark.parametrize("flags", [["--json"], ["--json", "--out", "answer.txt"], []])
def test_review_comes_before_the_question(signer, bin_dir, home, vectors, flags):
    data = calldata("approve(address,uint256)", ["address", "uint256"], [SPENDER, 2**255])
    (home.root / "request.txt").write_text(tx_request(vectors, data))
    pw = str(home.root / "pw.txt")
    code, screen = run_at_prompt(bin_dir, home, ["sign", "request.txt", "--password-file", pw, *flags], "n")
    assert code == 4, screen
    question = screen.index("Sign this?")
    assert screen.index(f"Spender: {SPENDER}") < question
    assert screen.index("!!! unlimited token approval") < question
    # Control: answering yes signs.
    code, screen = run_at_prompt(bin_dir, home, ["sign", "request.txt", "--password-file", pw, *flags], "y")
    assert code == 0, screen


def test_review_survives_a_real_terminal(signer, bin_dir, home, vectors):
    """tmux: a request whose texts try to erase the lines above them and to reverse a name; after the review the
    captured screen still shows the spender and the warnings."""
    permit = eip2612_permit(2**256 - 1)
    permit["domain"]["name"] = "Token\x1b[2J\x1b[H\x1b[3J"
    permit["domain"]["version"] = "1\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\u202e"
    (home.root / "request.txt").write_text(typed_request(vectors, permit))
    pw = str(home.root / "pw.txt")
    argv = [bin_dir / "airlock-signer", "sign", "request.txt", "--password-file", pw]
    with TmuxSession(shell_line(argv, home.env, home.root), width=200, height=60) as tmux:
        screen = tmux.wait_for("[y/N]", timeout=60)
        assert "[y/N]" in screen, screen
        assert f"Spender: {SPENDER}" in screen
        assert "!!! unlimited token approval" in screen
        assert "!!! some text held hidden characters" in screen
        assert "\\u202e" in screen and "\\u001b[2J" in screen
        tmux.send_keys("n", "Enter")
        assert "EXIT=4" in tmux.wait_for("EXIT=", timeout=20)


# --- 3. EIP-712: shown is hashed ---------------------------------------------------------------------------------


def mail_vector(vectors) -> dict:
    return json.loads((vectors / "ethereum" / "eip712" / "eip712_example_mail.json").read_text())["typed_data"]


def variants(base: dict) -> dict:
    out = {"control": base}

    def v(name, change):
        m = copy.deepcopy(base)
        change(m)
        out[name] = m

    v("undeclared domain member", lambda m: m["domain"].update(salt="0x" + "00" * 32))
    v("declared domain member absent", lambda m: m["domain"].pop("verifyingContract"))
    v(
        "chainId shown but not declared",
        lambda m: m["types"].update(EIP712Domain=[f for f in m["types"]["EIP712Domain"] if f["name"] != "chainId"]),
    )
    v(
        "non-standard domain member",
        lambda m: (m["types"]["EIP712Domain"].append({"name": "shop", "type": "string"}), m["domain"].update(shop="x")),
    )
    v("missing nested address", lambda m: m["message"]["to"].pop("wallet"))
    v("missing string (zero word)", lambda m: m["message"].pop("contents"))
    v("null nested struct", lambda m: m["message"].update({"to": None}))
    v("primaryType not the root", lambda m: (m.update(primaryType="Person"), m.update(message=m["message"]["to"])))
    v("unused type", lambda m: m["types"].update(Unused=[{"name": "a", "type": "uint8"}]))
    v("no message", lambda m: m.pop("message"))
    v("chainId as a string", lambda m: m["domain"].update(chainId="1"))
    v("extra top-level member", lambda m: m.update(note="x"))
    v("primaryType missing (derived)", lambda m: m.pop("primaryType"))
    v("address of a short form", lambda m: m["message"]["to"].update(wallet="0xbbbb"))
    v("uint as text that is no number", lambda m: m["domain"].update(chainId="abc"))
    v("negative chainId", lambda m: m["domain"].update(chainId=-1))
    v("undeclared type used", lambda m: m["types"]["Mail"].append({"name": "x", "type": "Foo"}))
    v("array for a struct", lambda m: m["message"].update(to=[]))
    v("null address", lambda m: m["message"]["to"].update(wallet=None))
    v("null string (zero word)", lambda m: m["message"].update(contents=None))
    v("lower-case address", lambda m: m["message"]["to"].update(wallet="0x" + "bb" * 20))
    return out


EIP712_CASES = [
    "control",
    "undeclared domain member",
    "declared domain member absent",
    "chainId shown but not declared",
    "non-standard domain member",
    "missing nested address",
    "missing string (zero word)",
    "null nested struct",
    "primaryType not the root",
    "unused type",
    "no message",
    "chainId as a string",
    "extra top-level member",
    "primaryType missing (derived)",
    "address of a short form",
    "uint as text that is no number",
    "negative chainId",
    "undeclared type used",
    "array for a struct",
    "null address",
    "null string (zero word)",
    "lower-case address",
]


@pytest.mark.parametrize("case", EIP712_CASES)
def test_eip712_refused_where_eth_account_refuses_and_signed_alike_where_it_signs(signer, vectors, case):
    message = variants(mail_vector(vectors))[case]
    try:
        expected = bytes(ACCOUNT.sign_message(encode_typed_data(full_message=message)).signature)
    except Exception:
        expected = None
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, message))
    if expected is None:
        assert proc.returncode == 2, (case, review_of(proc))
        assert "error:" in review_of(proc) and "TypedDataError" not in review_of(proc)
    else:
        assert proc.returncode == 0, (case, review_of(proc))
        assert answer(vectors, proc)[2] == expected, case


@pytest.mark.parametrize("where", ["message", "nested", "domain", "types"])
def test_eip712_duplicate_members_are_refused(signer, vectors, where):
    base = json.dumps(mail_vector(vectors))
    doubled = {
        "message": base.replace('"contents": "Hello, Bob!"', '"contents": "Pay Eve", "contents": "Hello, Bob!"'),
        "nested": base.replace('"name": "Bob"', '"name": "Eve", "name": "Bob"'),
        "domain": base.replace('"chainId": 1', '"chainId": 5, "chainId": 1'),
        "types": base.replace('"primaryType": "Mail"', '"primaryType": "Person", "primaryType": "Mail"'),
    }[where]
    assert doubled != base
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, doubled))
    assert proc.returncode == 2 and "twice" in review_of(proc)
    # Control: the text Python's reader keeps (the last copy) signs, to eth-account's signature.
    kept = json.loads(doubled)
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, json.dumps(kept)))
    expected = bytes(ACCOUNT.sign_message(encode_typed_data(full_message=kept)).signature)
    assert answer(vectors, proc)[2] == expected


@pytest.mark.parametrize("depth", ["top", "nested"])
def test_eip712_undeclared_message_members_are_refused(signer, vectors, depth):
    """eth-account ignores a member its type does not declare (it hashes without it); Airlock refuses it (exit 2):
    it would be shown and not signed."""
    message = mail_vector(vectors)
    target = message["message"] if depth == "top" else message["message"]["to"]
    target["amount"] = "1000000 USDC"
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, message))
    assert proc.returncode == 2 and "does not declare" in review_of(proc)
    target.pop("amount")
    assert signer("sign", "-", "--yes", input=typed_request(vectors, message)).returncode == 0


def test_chain_comes_from_the_signed_domain(signer, vectors):
    message = mail_vector(vectors)
    message["types"]["EIP712Domain"] = [f for f in message["types"]["EIP712Domain"] if f["name"] != "chainId"]
    del message["domain"]["chainId"]
    proc = signer("sign", "-", "--yes", "--json", input=typed_request(vectors, message, chain_id=1))
    assert proc.returncode == 0
    assert "Chain: valid on every chain" in review_of(proc) and "!!! the signed data names no chain" in review_of(proc)
    out = json.loads(proc.stdout)
    assert out["chain_id"] is None
    assert bytes.fromhex(out["signature"]) == bytes(
        ACCOUNT.sign_message(encode_typed_data(full_message=message)).signature
    )
    # Control: a domain that signs chain 1 is shown as Ethereum (1); the request claiming 137 is refused (exit 4).
    control = mail_vector(vectors)
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, control, chain_id=1))
    assert proc.returncode == 0 and "Chain: Ethereum (1)" in review_of(proc)
    assert signer("sign", "-", "--yes", input=typed_request(vectors, control, chain_id=137)).returncode == 4


# --- 4. Approvals judged by effect -------------------------------------------------------------------------------

APPROVALS = {
    "approve": ("approve(address,uint256)", ["address", "uint256"], lambda n: [SPENDER, n]),
    "increaseAllowance": ("increaseAllowance(address,uint256)", ["address", "uint256"], lambda n: [SPENDER, n]),
    "permit2 approve": (
        "approve(address,address,uint160,uint48)",
        ["address", "address", "uint160", "uint48"],
        lambda n: [TOKEN, SPENDER, min(n, 2**160 - 1), 2**40],
    ),
    "eip2612 permit": (
        "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
        ["address", "address", "uint256", "uint256", "uint8", "bytes32", "bytes32"],
        lambda n: [OTHER, SPENDER, n, 2**40, 27, b"\x01" * 32, b"\x02" * 32],
    ),
    "permit2 permit single": (
        "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)",
        ["address", "((address,uint160,uint48,uint48),address,uint256)", "bytes"],
        lambda n: [OTHER, ((TOKEN, min(n, 2**160 - 1), 2**40, 0), SPENDER, 2**40), b"\x01" * 65],
    ),
    "permit2 permit batch": (
        "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)",
        ["address", "((address,uint160,uint48,uint48)[],address,uint256)", "bytes"],
        lambda n: [
            OTHER,
            ([(OTHER, 5, 2**40, 0), (TOKEN, min(n, 2**160 - 1), 2**40, 1)], SPENDER, 2**40),
            b"\x01" * 65,
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(APPROVALS))
def test_allowances_of_2_128_or_more_are_unlimited(signer, vectors, name):
    signature, types, values = APPROVALS[name]
    to = PERMIT2 if name.startswith("permit2") else TOKEN
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, calldata(signature, types, values(2**128)), to=to))
    assert proc.returncode == 0, review_of(proc)
    assert "UNLIMITED (in effect" in review_of(proc) and "!!! unlimited token approval" in review_of(proc)
    assert SPENDER in review_of(proc)
    # Control: 2^128 - 1 is shown as a number, without the warning.
    proc = signer(
        "sign", "-", "--yes", input=tx_request(vectors, calldata(signature, types, values(2**128 - 1)), to=to)
    )
    assert proc.returncode == 0
    assert str(2**128 - 1) in review_of(proc) and "unlimited" not in review_of(proc) and SPENDER in review_of(proc)


def test_set_approval_for_all_always_warns(signer, vectors):
    on = calldata("setApprovalForAll(address,bool)", ["address", "bool"], [SPENDER, True])
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, on))
    assert proc.returncode == 0
    assert f"Operator: {SPENDER}" in review_of(proc)
    assert f"!!! {SPENDER} can take every token of the collection {TOKEN}" in review_of(proc)
    off = calldata("setApprovalForAll(address,bool)", ["address", "bool"], [SPENDER, False])
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, off))
    assert proc.returncode == 0 and "every token of the collection" not in review_of(proc)


def test_erc721_approve_shows_both_readings(signer, vectors):
    proc = signer(
        "sign",
        "-",
        "--yes",
        input=tx_request(vectors, calldata("approve(address,uint256)", ["address", "uint256"], [SPENDER, 42])),
    )
    assert "ERC-721: or, if" in review_of(proc) and "token #42" in review_of(proc)
    # Control: a token the signer knows (USDC) is an ERC-20: units, no NFT reading.
    proc = signer(
        "sign",
        "-",
        "--yes",
        input=tx_request(
            vectors, calldata("approve(address,uint256)", ["address", "uint256"], [SPENDER, 2_500_000]), to=USDC
        ),
    )
    assert f"approve 2.5 USDC for {SPENDER}" in review_of(proc) and "ERC-721" not in review_of(proc)


@pytest.mark.parametrize(
    "signature,types,values",
    [
        ("transferFrom(address,address,uint256)", ["address", "address", "uint256"], [ACCOUNT.address, OTHER, 7]),
        ("safeTransferFrom(address,address,uint256)", ["address", "address", "uint256"], [ACCOUNT.address, OTHER, 7]),
        (
            "safeTransferFrom(address,address,uint256,bytes)",
            ["address", "address", "uint256", "bytes"],
            [ACCOUNT.address, OTHER, 7, b"hi"],
        ),
        (
            "safeTransferFrom(address,address,uint256,uint256,bytes)",
            ["address", "address", "uint256", "uint256", "bytes"],
            [ACCOUNT.address, OTHER, 7, 3, b""],
        ),
        (
            "transferFrom(address,address,uint160,address)",
            ["address", "address", "uint160", "address"],
            [ACCOUNT.address, OTHER, 7, TOKEN],
        ),
    ],
)
def test_transfers_from_this_account_are_named(signer, vectors, signature, types, values):
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, calldata(signature, types, values)))
    assert proc.returncode == 0, review_of(proc)
    assert f"from your account {ACCOUNT.address} to {OTHER}" in review_of(proc)
    # Control: taking from someone else's account is shown but not flagged as taking from this one.
    values = [OTHER, ACCOUNT.address, *values[2:]]
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, calldata(signature, types, values)))
    assert proc.returncode == 0 and "from your account" not in review_of(proc)


# The EIP712Domain of a token's permit (name, version, chainId, verifyingContract), as USDC and DAI declare it.
TOKEN_DOMAIN_TYPE = [
    {"name": "name", "type": "string"},
    {"name": "version", "type": "string"},
    {"name": "chainId", "type": "uint256"},
    {"name": "verifyingContract", "type": "address"},
]


def eip2612_permit(value: int) -> dict:
    return {
        "types": {
            "EIP712Domain": TOKEN_DOMAIN_TYPE,
            "Permit": [
                {"name": "owner", "type": "address"},
                {"name": "spender", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "nonce", "type": "uint256"},
                {"name": "deadline", "type": "uint256"},
            ],
        },
        "primaryType": "Permit",
        "domain": {"name": "USD Coin", "version": "2", "chainId": 1, "verifyingContract": USDC},
        "message": {"owner": ACCOUNT.address, "spender": SPENDER, "value": value, "nonce": 0, "deadline": 2**32},
    }


def dai_permit(allowed: bool) -> dict:
    return {
        "types": {
            "EIP712Domain": TOKEN_DOMAIN_TYPE,
            "Permit": [
                {"name": "holder", "type": "address"},
                {"name": "spender", "type": "address"},
                {"name": "nonce", "type": "uint256"},
                {"name": "expiry", "type": "uint256"},
                {"name": "allowed", "type": "bool"},
            ],
        },
        "primaryType": "Permit",
        "domain": {
            "name": "Dai Stablecoin",
            "version": "1",
            "chainId": 1,
            "verifyingContract": "0x6B175474E89094C44Da98b954EedeAC495271d0F",
        },
        "message": {"holder": ACCOUNT.address, "spender": SPENDER, "nonce": 0, "expiry": 2**32, "allowed": allowed},
    }


PERMIT2_DOMAIN = {
    "types": [
        {"name": "name", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ],
    "value": {"name": "Permit2", "chainId": 1, "verifyingContract": PERMIT2},
}
DETAILS = [
    {"name": "token", "type": "address"},
    {"name": "amount", "type": "uint160"},
    {"name": "expiration", "type": "uint48"},
    {"name": "nonce", "type": "uint48"},
]


def permit2(kind: str, amount: int) -> dict:
    types = {"EIP712Domain": PERMIT2_DOMAIN["types"]}
    if kind == "PermitSingle":
        types |= {
            "PermitSingle": [
                {"name": "details", "type": "PermitDetails"},
                {"name": "spender", "type": "address"},
                {"name": "sigDeadline", "type": "uint256"},
            ],
            "PermitDetails": DETAILS,
        }
        message = {
            "details": {"token": USDC, "amount": amount, "expiration": 2**40, "nonce": 0},
            "spender": SPENDER,
            "sigDeadline": 2**32,
        }
    elif kind == "PermitBatch":
        types |= {
            "PermitBatch": [
                {"name": "details", "type": "PermitDetails[]"},
                {"name": "spender", "type": "address"},
                {"name": "sigDeadline", "type": "uint256"},
            ],
            "PermitDetails": DETAILS,
        }
        message = {
            "details": [
                {"token": TOKEN, "amount": 5, "expiration": 2**40, "nonce": 0},
                {"token": USDC, "amount": amount, "expiration": 2**40, "nonce": 0},
            ],
            "spender": SPENDER,
            "sigDeadline": 2**32,
        }
    else:
        batch = kind == "PermitBatchTransferFrom"
        witness = kind == "PermitWitnessTransferFrom"
        types |= {
            kind: [
                {"name": "permitted", "type": "TokenPermissions[]" if batch else "TokenPermissions"},
                {"name": "spender", "type": "address"},
                {"name": "nonce", "type": "uint256"},
                {"name": "deadline", "type": "uint256"},
            ]
            + ([{"name": "witness", "type": "Witness"}] if witness else []),
            "TokenPermissions": [{"name": "token", "type": "address"}, {"name": "amount", "type": "uint256"}],
        }
        permitted = {"token": USDC, "amount": amount}
        message = {"permitted": [permitted] if batch else permitted, "spender": SPENDER, "nonce": 0, "deadline": 2**32}
        if witness:
            types["Witness"] = [{"name": "user", "type": "address"}]
            message["witness"] = {"user": OTHER}
    return {"types": types, "primaryType": kind, "domain": PERMIT2_DOMAIN["value"], "message": message}


TYPED_PERMITS = {
    "EIP-2612": eip2612_permit,
    "PermitSingle": lambda n: permit2("PermitSingle", n),
    "PermitBatch": lambda n: permit2("PermitBatch", n),
    "PermitTransferFrom": lambda n: permit2("PermitTransferFrom", n),
    "PermitBatchTransferFrom": lambda n: permit2("PermitBatchTransferFrom", n),
    "PermitWitnessTransferFrom": lambda n: permit2("PermitWitnessTransferFrom", n),
}


@pytest.mark.parametrize("name", sorted(TYPED_PERMITS))
def test_typed_data_permits_show_spender_and_amount(signer, vectors, name):
    unlimited = TYPED_PERMITS[name](2**160 - 1)
    proc = signer("sign", "-", "--yes", "--json", input=typed_request(vectors, unlimited))
    assert proc.returncode == 0, review_of(proc)
    assert f"Spender: {SPENDER}" in review_of(proc)
    assert "UNLIMITED (in effect" in review_of(proc) and "!!! unlimited token approval" in review_of(proc)
    expected = ACCOUNT.sign_message(encode_typed_data(full_message=unlimited)).signature
    assert bytes.fromhex(json.loads(proc.stdout)["signature"]) == bytes(expected)
    # Control: 12.5 USDC is shown in token units, without the unlimited warning.
    finite = TYPED_PERMITS[name](12_500_000)
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, finite))
    assert proc.returncode == 0 and "12.5 USDC" in review_of(proc) and "unlimited" not in review_of(proc)


def test_dai_permit_allowed_is_unlimited(signer, vectors):
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, dai_permit(True)))
    assert proc.returncode == 0 and "UNLIMITED (in effect" in review_of(proc) and SPENDER in review_of(proc)
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, dai_permit(False)))
    assert proc.returncode == 0 and "revoke" in review_of(proc) and "UNLIMITED" not in review_of(proc)


# --- 5. Blind signing is a choice --------------------------------------------------------------------------------

BLIND_MESSAGES = {
    "32-byte hash": bytes(range(32)),
    "not UTF-8": b"\xff\xfe\x00\x01 binary",
    "terminal controls": b"\x1b]0;owned\x07\x1b[2Jhello",
    "32 printable bytes": b"A" * 32,
}


@pytest.mark.parametrize("case", sorted(BLIND_MESSAGES))
def test_blind_messages_need_allow_blind(signer, vectors, case):
    message = BLIND_MESSAGES[case]
    request = sign_request(vectors, message, 3, 1)[1]
    proc = signer("sign", "-", "--yes", "--json", input=request)
    assert proc.returncode == 4 and "blind signing" in review_of(proc)
    assert "Message (hex): 0x" + message.hex() in review_of(proc)
    verdict = json.loads(proc.stdout)
    assert verdict["verdict"] == "refused" and "blind signing" in verdict["refusals"][0]
    proc = signer("sign", "-", "--yes", "--allow-blind", input=request)
    sig = answer(vectors, proc)[2]
    assert Account.recover_message(encode_defunct(primitive=message), signature=sig) == ACCOUNT.address
    assert "!!! blind signing (--allow-blind)" in review_of(proc)


@pytest.mark.parametrize("length", [31, 33])
def test_readable_messages_are_not_blind(signer, vectors, length):
    proc = signer("sign", "-", "--yes", input=sign_request(vectors, b"a" * length, 3, 1)[1])
    assert proc.returncode == 0 and "blind" not in review_of(proc)


def test_undecodable_calldata_needs_allow_blind(signer, vectors):
    data = calldata(
        "swapExactTokensForTokens(uint256,uint256,address[],address,uint256)",
        ["uint256", "uint256", "address[]", "address", "uint256"],
        [1, 2, [TOKEN, OTHER], OTHER, 3],
    )
    tx = dict(TXS["eip1559"], data=data)
    request = sign_request(vectors, unsigned_bytes(tx), 4, 1)[1]
    proc = signer("sign", "-", "--yes", input=request)
    assert proc.returncode == 4 and "cannot decode" in review_of(proc)
    proc = signer("sign", "-", "--yes", "--allow-blind", input=request)
    expected = ACCOUNT.sign_transaction(tx)
    sig = answer(vectors, proc)[2]
    assert sig[:32] == expected.r.to_bytes(32, "big") and sig[32:64] == expected.s.to_bytes(32, "big")
    # Control: a plain ETH payment has no calldata and is not blind.
    plain = sign_request(vectors, unsigned_bytes(dict(TXS["eip1559"], data="0x")), 4, 1)[1]
    assert signer("sign", "-", "--yes", input=plain).returncode == 0


# --- Tokens on the signer ----------------------------------------------------------------------------------------


def test_token_add_list_remove_and_units(signer, vectors):
    transfer = calldata("transfer(address,uint256)", ["address", "uint256"], [OTHER, 12_500_000])
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, transfer))
    assert "transfer 12500000 base units" in review_of(proc) and "not in the signer's token list" in review_of(proc)
    assert signer("token", "add", TOKEN, "--chain-id", "1", "--symbol", "ATT", "--decimals", "6").returncode == 4
    proc = signer("token", "add", TOKEN, "--chain-id", "1", "--symbol", "ATT", "--decimals", "6", "--yes")
    assert proc.returncode == 0, review_of(proc)
    assert "Token: ATT, 6 decimals" in review_of(proc)
    listed = json.loads(signer("token", "list", "--json", check=True).stdout)
    assert {"chain_id": 1, "address": TOKEN, "symbol": "ATT", "decimals": 6, "built_in": False} in listed
    builtin = {t["symbol"]: t for t in listed if t["built_in"]}
    assert len(builtin) == 20 and all(to_checksum_address(t["address"].lower()) == t["address"] for t in listed)
    assert builtin["USDC"]["address"] == to_checksum_address(USDC.lower()) and builtin["USDC"]["decimals"] == 6
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, transfer))
    assert f"transfer 12.5 ATT to {OTHER}" in review_of(proc) and "token list" not in review_of(proc)
    # Refusals and bad input: a second add is refused (4); bad symbol, decimals or address exit 1.
    assert signer("token", "add", TOKEN, "--chain-id", "1", "--symbol", "X", "--decimals", "6", "--yes").returncode == 4
    assert (
        signer("token", "add", OTHER, "--chain-id", "1", "--symbol", "A\x1bB", "--decimals", "6", "--yes").returncode
        == 1
    )
    assert (
        signer("token", "add", OTHER, "--chain-id", "1", "--symbol", "OK", "--decimals", "99", "--yes").returncode == 1
    )
    assert (
        signer("token", "add", "0x1234", "--chain-id", "1", "--symbol", "OK", "--decimals", "6", "--yes").returncode
        == 1
    )
    assert signer("token", "remove", TOKEN, check=True).returncode == 0
    assert signer("token", "remove", TOKEN).returncode == 2
    proc = signer("sign", "-", "--yes", input=tx_request(vectors, transfer))
    assert "transfer 12500000 base units" in review_of(proc)


# --- Strict JSON for every JSON the signer reads -----------------------------------------------------------------


def test_vault_with_a_repeated_member_is_refused(signer, home):
    original = home.vault.read_text()
    assert signer("info").returncode == 0
    doubled = original.replace(
        '"passphrase_stored" : false', '"passphrase_stored" : true,\n  "passphrase_stored" : false'
    )
    assert doubled != original
    home.vault.write_text(doubled)
    proc = signer("info")
    assert proc.returncode == 2 and "twice" in review_of(proc)
    home.vault.write_text(original)
    assert signer("info").returncode == 0


def test_keystore_with_a_repeated_member_is_refused(signer, home):
    key = "0x" + "11" * 32
    keystore = Account.encrypt(key, "ks-pw", kdf="scrypt", iterations=2**10)
    pw = home.root / "kspw.txt"
    pw.write_text("ks-pw\n")
    text = json.dumps(keystore)
    doubled = text.replace('"version": 3', '"version": 1, "version": 3')
    assert doubled != text
    (home.root / "dup.json").write_text(doubled)
    proc = signer("key", "import", "dup.json", "--chain", "eth", "--keystore-password-file", str(pw))
    assert proc.returncode == 2, review_of(proc)
    (home.root / "ok.json").write_text(text)
    proc = signer("key", "import", "ok.json", "--chain", "eth", "--keystore-password-file", str(pw))
    assert proc.returncode == 0, review_of(proc)


def test_permit_without_a_contract_in_its_domain_is_still_judged(signer, vectors):
    permit = eip2612_permit(2**200)
    permit["types"]["EIP712Domain"] = [f for f in permit["types"]["EIP712Domain"] if f["name"] != "verifyingContract"]
    del permit["domain"]["verifyingContract"]
    proc = signer("sign", "-", "--yes", "--json", input=typed_request(vectors, permit))
    assert proc.returncode == 0, review_of(proc)
    assert "UNLIMITED (in effect" in review_of(proc) and "!!! unlimited token approval" in review_of(proc)
    expected = ACCOUNT.sign_message(encode_typed_data(full_message=permit)).signature
    assert bytes.fromhex(json.loads(proc.stdout)["signature"]) == bytes(expected)
    # Control: a finite amount is shown in base units, without the unlimited warning.
    permit["message"]["value"] = 5
    proc = signer("sign", "-", "--yes", input=typed_request(vectors, permit))
    assert proc.returncode == 0 and "may spend 5 base units" in review_of(proc) and "unlimited" not in review_of(proc)
