"""The watcher learns the node's chain before it syncs (issue 27): a wallet on another network than the node is
refused with both names (exit 2), never synced and never reported as a lying server; a wallet whose test keys cannot
tell testnet from regtest (a tpub with no --network) takes the node's test chain at its first sync and says so; an
Ethereum account on another chain id than the node is refused naming the --chain-id to use. Against the real regtest
node (Electrum, Bitcoin Core RPC, Esplora) and the devnet, each case beside a control that goes through."""

from __future__ import annotations

import json
import uuid

import pytest
from test_watcher_eth import start_devnet
from watcher_helpers import EsploraAdapter, make_account

# BIP84's test vector account (mnemonic "abandon … about"): a mainnet wallet.
MAINNET = (
    "wpkh([73c5da0a/84h/0h/0h]xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4"
    "ZeZXYVUhLv1VMrjPC7PW6V/<0;1>/*)"
)
INTERNALS = ("verification", "lying", "ChainError", "wrongChain", "errno")


def watcher(run, *args, input=None, check=True):
    return run("airlock-watcher", *args, input=input, check=check)


def node_url(node, backend: str, esplora=None) -> str:
    if backend == "electrum":
        return f"electrum://127.0.0.1:{node.electrum_port}"
    if backend == "bitcoind":
        return f"bitcoind://127.0.0.1:{node.rpc_port}/wallet/airlock-{uuid.uuid4().hex[:12]}?cookie={node.cookie}"
    return f"esplora+http://127.0.0.1:{esplora.port}"


@pytest.fixture
def esplora(regtest_node):
    adapter = EsploraAdapter(regtest_node)
    yield adapter
    adapter.close()


@pytest.mark.parametrize("backend", ["electrum", "bitcoind", "esplora"])
def test_mainnet_wallet_on_a_regtest_node_is_refused_with_both_names(run, regtest_node, esplora, backend):
    watcher(run, "import", "-", "--name", "savings", input=MAINNET)
    regtest = make_account("wpkh")
    watcher(run, "import", "-", "--name", "practice", "--network", "regtest", input=regtest.descriptor)
    watcher(run, "node", "set", node_url(regtest_node, backend, esplora))
    for json_flag in ([], ["--json"]):
        proc = watcher(run, "--wallet", "savings", "sync", *json_flag, check=False)
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        message = json.loads(proc.stdout)["error"]["message"] if json_flag else proc.stderr.decode()
        assert "wallet 'savings' is mainnet, the node is regtest" in message
        assert "node set" in message and "init --network regtest" in message
        assert not any(word in message for word in INTERNALS), message
    # Nothing was synced for it, and send (fee estimate) and broadcast refuse the same way.
    assert json.loads(watcher(run, "--wallet", "savings", "balance", "--json").stdout)["height"] is None
    proc = watcher(run, "--wallet", "savings", "send", "--to", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
                   "--amount", "0.001btc", check=False)  # fmt: skip
    assert proc.returncode == 2 and b"is mainnet, the node is regtest" in proc.stderr
    # node test shows the node's chain and warns about the wallet.
    tested = watcher(run, "--wallet", "savings", "node", "test", "--json")
    report = json.loads(tested.stdout)
    assert report["chain"] == "regtest" and any("is mainnet" in w for w in report["warnings"])
    # Control: the regtest wallet on the same node syncs.
    regtest_node.send_to(regtest.address(0), 40_000)
    regtest_node.mine(1)
    synced = json.loads(watcher(run, "--wallet", "practice", "sync", "--json").stdout)
    assert synced["balance"] == 40_000


@pytest.mark.parametrize("backend", ["electrum", "bitcoind", "esplora"])
def test_tpub_wallet_takes_the_nodes_regtest_at_its_first_sync_and_says_so(run, regtest_node, esplora, backend):
    account = make_account("wpkh")
    imported = watcher(run, "import", "-", "--name", "practice", "--json", input=account.descriptor)
    assert json.loads(imported.stdout)["network"] == "test"
    text = watcher(run, "import", "-", "--name", "other", input=account.descriptor).stdout.decode()
    assert "takes the network of the node it is first synced from" in text
    watcher(run, "wallets", "delete", "other", "--yes")
    shown = json.loads(watcher(run, "receive", "--json").stdout)["address"]
    assert shown.startswith("tb1")  # before the first sync: the testnet form of the same script
    regtest_node.send_to(account.address(0), 70_000)
    regtest_node.mine(1)
    watcher(run, "node", "set", node_url(regtest_node, backend, esplora))
    first = watcher(run, "sync", "--json")
    assert json.loads(first.stdout)["balance"] == 70_000
    note = first.stderr.decode()
    assert "wallet 'practice' now follows the node's network, regtest" in note and "stored" in note
    [listed] = json.loads(watcher(run, "wallets", "--json").stdout)
    assert listed["network"] == "regtest" and listed["chain"] == "bitcoin"
    assert json.loads(watcher(run, "receive", "--json").stdout)["address"] == account.address(1)
    assert account.address(1).startswith("bcrt1")
    # Told once: the next sync is quiet.
    assert "follows the node's network" not in watcher(run, "sync").stderr.decode()


def test_named_testnet_wallet_is_refused_on_regtest(run, regtest_node):
    account = make_account("wpkh")
    watcher(run, "import", "-", "--name", "tn", "--network", "test", input=account.descriptor)
    watcher(run, "node", "set", node_url(regtest_node, "electrum"))
    proc = watcher(run, "sync", check=False)
    assert proc.returncode == 2
    message = proc.stderr.decode()
    assert "wallet 'tn' is testnet, the node is regtest" in message and "--network regtest" in message
    assert json.loads(watcher(run, "wallets", "--json").stdout)[0]["network"] == "test"


def test_eth_chain_id_mismatch_names_the_chain_id_flag(run, home, tmp_path, devnet_info):
    chain_id = devnet_info["chain_id"]
    # A node set before the import: the default chain id (1) contradicts it, and import says which flag to give.
    watcher(run, "node", "set", f"eth+http://127.0.0.1:{devnet_info['rpc']}")
    proc = watcher(run, "eth", "import", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "--name", "cold", check=False)
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.decode()
    assert f"is on chain id {chain_id}" in message and f"--chain-id {chain_id}" in message
    assert json.loads(watcher(run, "wallets", "--json").stdout) == []
    # An account imported for mainnet earlier (no node then): its sync is refused the same way, exit 2.
    watcher(run, "node", "set", "eth+http://127.0.0.1:1")
    watcher(run, "eth", "import", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "--name", "cold", "--chain-id", "1")
    watcher(run, "node", "set", f"eth+http://127.0.0.1:{devnet_info['rpc']}")
    proc = watcher(run, "eth", "sync", "--json", check=False)
    assert proc.returncode == 2
    message = json.loads(proc.stdout)["error"]["message"]
    assert "account 'cold' is on chain id 1 (Ethereum mainnet)" in message and f"--chain-id {chain_id}" in message
    assert not any(word in message for word in INTERNALS), message
    # Control: imported with the flag the message names, the account syncs.
    watcher(run, "wallets", "delete", "cold", "--yes")
    watcher(
        run,
        "eth",
        "import",
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        "--name",
        "cold",
        "--chain-id",
        str(chain_id),
    )
    assert json.loads(watcher(run, "eth", "sync", "--json").stdout)["account"] == "cold"


@pytest.fixture(scope="module")
def devnet_info():
    proc, info = start_devnet()
    yield info
    proc.terminate()
    proc.wait(timeout=30)
