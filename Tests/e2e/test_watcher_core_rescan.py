"""airlock-watcher's wallet birthday and the node's rescan, through Bitcoin Core RPC on the regtest node: an import
with `--birthday` (a height or a date) makes the node rescan only from that block on; a slow rescan (the node paced
with --rescan-delay-ms) completes under `sync` with its progress shown and no per-request timeout; and a sync killed
during the rescan is resumed by the next one, which waits for the rescan still running on the node."""

from __future__ import annotations

import re
import signal
import subprocess
import time

from test_watcher_send import SigningAccount, jout, watcher

RESCANNED = re.compile(r"wallet '([^']*)': rescanned from height (\d+) in ([\d.]+) s \(heights (\d+)\.\.(\d+)\)")


def core_url(node) -> str:
    return f"bitcoind://127.0.0.1:{node.rpc_port}?cookie={node.cookie}"


def rescans(node, wallet: str) -> list[tuple[int, float, int, int]]:
    """(start, seconds, first, last) of every rescan the node logged for `wallet`."""
    out = []
    for m in RESCANNED.finditer(node.log_path.read_text(errors="replace")):
        if m.group(1) == wallet:
            out.append((int(m.group(2)), float(m.group(3)), int(m.group(4)), int(m.group(5))))
    return out


def restart_with(node, *flags: str) -> None:
    node.stop()
    node.extra_args = tuple(flags)
    node._spawn(0, 0, 60)


def test_birthday_rescans_only_from_there(run, fresh_regtest_node):
    node = fresh_regtest_node
    account = SigningAccount("wpkh")
    now = int(time.time())
    node.cli("setmocktime", now - 3 * 86400)  # an old part of the chain, three days ago
    old_txid = node.send_to(account.address(0), 100_000)
    node.mine(1)
    old_height = node.height()
    node.cli("setmocktime", now - 86400)  # a day ago: more than Core's two-hour window later
    node.mine(3)
    first_recent = old_height + 1
    new_txid = node.send_to(account.address(1), 200_000)
    node.mine(1)
    birthday = node.height()
    node.cli("setmocktime", 0)
    node.mine(2)
    assert node.cli("getblockheader", node.cli("getblockhash", old_height))["time"] < now - 2 * 86400

    day = time.strftime("%Y-%m-%d", time.gmtime(now - 86400))
    wallets = {"by-height": ["--birthday", str(birthday)], "by-date": ["--birthday", day], "genesis": []}
    for name, extra in wallets.items():
        imported = jout(
            watcher(
                run, "import", "-", "--name", name, "--network", "regtest", *extra, "--json", input=account.descriptor
            )
        )
        assert imported["birthday"] == (extra[1] if extra else None)
    watcher(run, "node", "set", core_url(node))
    balances = {name: jout(watcher(run, "--wallet", name, "sync", "--json"))["balance"] for name in wallets}

    # With a birthday the node rescanned from the first block within two hours before it, never the old part.
    for name in ("by-height", "by-date"):
        [(start, _, first, last)] = rescans(node, f"airlock-{name}")
        assert (start, first, last) == (first_recent, first_recent, node.height()), name
        assert balances[name] == 200_000, name
        listed = {
            t["txid"]
            for t in node.cli("listsinceblock", "", 1, True, True, True, wallet=f"airlock-{name}")["transactions"]
        }
        assert new_txid in listed and old_txid not in listed
    # Control: without a birthday the rescan starts at genesis and finds both payments.
    [(start, _, first, last)] = rescans(node, "airlock-genesis")
    assert (start, first, last) == (0, 0, node.height())
    assert balances["genesis"] == 300_000
    descs = node.cli("listdescriptors", wallet="airlock-by-height")["descriptors"]
    block_time = node.cli("getblockheader", node.cli("getblockhash", birthday))["time"]
    assert {d["timestamp"] for d in descs} == {block_time}
    descs = node.cli("listdescriptors", wallet="airlock-by-date")["descriptors"]
    assert {d["timestamp"] for d in descs} == {(now - 86400) // 86400 * 86400}

    # Bad birthdays are usage errors and import nothing.
    for bad in ("yesterday", "2024-02-30", "2008-12-31", "12.5", "99999999999"):
        proc = watcher(
            run,
            "import",
            "-",
            "--name",
            "bad",
            "--network",
            "regtest",
            "--birthday",
            bad,
            input=account.descriptor,
            check=False,
        )
        assert proc.returncode == 1 and b"--birthday" in proc.stderr, bad
    assert "bad" not in [w["name"] for w in jout(watcher(run, "wallets", "--json"))]


def fund(node, account) -> int:
    node.send_to(account.address(0), 70_000)
    node.send_to(account.address(3), 50_000)
    node.mine(1)
    return 120_000


def test_slow_rescan_completes_under_sync_with_progress_and_no_timeout(run, home, fresh_regtest_node):
    node = fresh_regtest_node
    account = SigningAccount("wpkh")
    expected = fund(node, account)
    restart_with(node, "--rescan-delay-ms", "60")
    home.env["AIRLOCK_NODE_TIMEOUT"] = "2"  # each request's limit; the rescan takes longer
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    watcher(run, "node", "set", core_url(node))
    synced = watcher(run, "sync", "--json")
    assert jout(synced)["balance"] == expected
    [(start, seconds, first, last)] = rescans(node, "airlock-w")
    assert (start, first, last) == (0, 0, node.height())
    assert seconds > 2 * 2  # well past the per-request limit
    progress = [int(p) for p in re.findall(rb"node rescan: (\d+)%", synced.stderr)]
    assert len(progress) >= 3 and progress == sorted(progress) and progress[-1] == 100, synced.stderr
    assert node.cli("getwalletinfo", wallet="airlock-w")["scanning"] is False


def test_sync_killed_during_rescan_is_resumed(run, bin_dir, home, fresh_regtest_node):
    node = fresh_regtest_node
    account = SigningAccount("wpkh")
    expected = fund(node, account)
    restart_with(node, "--rescan-delay-ms", "80")
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    watcher(run, "node", "set", core_url(node))
    first = subprocess.Popen(
        [str(bin_dir / "airlock-watcher"), "sync"],
        env=home.env,
        cwd=home.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    scanning = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            scanning = node.cli("getwalletinfo", wallet="airlock-w")["scanning"]
        except Exception:
            scanning = False
        if scanning and scanning["progress"] > 0.1:
            break
        time.sleep(0.1)
    assert scanning, "the node never reported a rescan"
    assert set(scanning) == {"duration", "progress"} and 0 < scanning["progress"] < 1
    first.send_signal(signal.SIGKILL)
    first.wait()
    # The node carries on with the rescan; the next sync waits for it and does not import again.
    assert node.cli("getwalletinfo", wallet="airlock-w")["scanning"]
    resumed = watcher(run, "sync", "--json")
    assert jout(resumed)["balance"] == expected
    assert b"node rescan:" in resumed.stderr
    assert len(rescans(node, "airlock-w")) == 1
    assert "currently rescanning" not in node.log_path.read_text(errors="replace")


def test_birthday_on_a_chain_ahead_of_the_clock_finds_its_payment(run, fresh_regtest_node):
    """Blocks dated almost two hours ahead of the wall clock (mined in a burst; the kernel takes no more): a wallet
    whose birthday is such a block has a birthday "in the future" by the clock. The node compares it with the chain's
    own time, as Core does, rescans from there and the sync through bitcoind:// finds the payment; the control, a
    payment five hours before the birthday, is outside the rescan and not found."""
    node = fresh_regtest_node
    account = SigningAccount("wpkh")
    now = int(time.time())
    node.cli("setmocktime", now - 5 * 3600)
    node.send_to(account.address(0), 100_000)
    node.mine(1)
    node.cli("setmocktime", now + 6600)
    node.mine(2)
    birthday = node.height()
    born_at = node.cli("getblockheader", node.cli("getblockhash", birthday))["time"]
    assert born_at > time.time() + 3600  # the birthday block is dated after the wall clock
    new_txid = node.send_to(account.address(1), 200_000)
    node.mine(2)
    watcher(run, "import", "-", "--name", "ahead", "--network", "regtest", "--birthday", str(birthday),
            input=account.descriptor)  # fmt: skip
    watcher(run, "node", "set", core_url(node))
    synced = jout(watcher(run, "sync", "--json"))
    assert synced["balance"] == 200_000
    [(start, _, first, last)] = rescans(node, "airlock-ahead")
    assert first == start <= birthday and last == node.height()
    listed = {
        t["txid"] for t in node.cli("listsinceblock", "", 1, True, True, True, wallet="airlock-ahead")["transactions"]
    }
    assert new_txid in listed
