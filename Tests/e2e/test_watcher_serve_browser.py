"""`airlock-watcher serve` in a real browser (issue 29, Must show): Debian's chromium, headless, driven by Selenium.

The round trip on the regtest node: the account QR imported by the wallets page's scanner, sync with live
progress, send → the page's animated frames captured from the page → `airlock-signer sign` reads them → its answer
turned into a .y4m video → Chromium's camera is that video → the scan page decodes it → Broadcast → the node mines it
→ the overview's balance equals `balance --json`. Beside it: names and labels holding markup are shown as text."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from browser_helpers import banner, browser, go, screenshot, wait_for
from roundtrip_helpers import outside_address, outside_holds
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select
from serve_helpers import start_serve
from signer_psbt import Vault, new_mnemonic
from test_watcher_eth import RECIPIENT, TOKEN_RECIPIENT, devnet, fund, make_wallet, token_balance, w3  # noqa: F401
from watcher_helpers import make_account

XSS = "<img src=x onerror=\"document.title='pwned'\">"


def login(driver, served):
    driver.get(served.url)
    wait_for(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-page"), what="the first page")


@pytest.fixture
def served(bin_dir, home):
    server = start_serve(bin_dir, home.env)
    yield server
    server.stop()


def test_markup_in_a_wallet_name_is_shown_as_text(run, served, tmp_path):
    descriptor = make_account("wpkh").descriptor
    run("airlock-watcher", "import", "-", "--name", XSS, "--network", "regtest", input=descriptor, check=True)
    run("airlock-watcher", "import", "-", "--name", "plain", "--network", "regtest", input=descriptor, check=True)
    driver = browser()
    try:
        login(driver, served)
        go(driver, served, "overview")
        names = wait_for(lambda: [h.text for h in driver.find_elements(By.CSS_SELECTOR, "main h2")], what="cards")
        # Control: the plain name is shown; the one with markup is shown as its text, and no element was made of it.
        assert "plain" in names and XSS in names, names
        assert driver.find_elements(By.CSS_SELECTOR, "main img, header img") == []
        assert driver.title == "Airlock watcher"
        options = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#wallet option")]
        assert XSS in options
        go(driver, served, "wallets")
        assert XSS in driver.find_element(By.CSS_SELECTOR, "main table").text
        assert driver.title == "Airlock watcher"
        assert driver.execute_script("return document.querySelectorAll('img[src=\"x\"]').length") == 0
    finally:
        driver.quit()


def captured_frames(driver, work, count: int) -> list:
    """Screenshots of the page's animated QR image, until every frame has been seen twice."""
    seen: dict[str, int] = {}
    shots = []
    image = driver.find_element(By.ID, "request-frame")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", image)
    deadline = time.time() + 120
    loaded = "return arguments[0].complete && arguments[0].naturalWidth > 0"
    while time.time() < deadline and (len(seen) < count or min(seen.values()) < 2):
        wait_for(lambda: driver.execute_script(loaded, image), interval=0.02, what="the frame's image")
        frame = image.get_attribute("data-frame")
        path = work / f"captured-{len(shots):03d}.png"
        path.write_bytes(image.screenshot_as_png)
        shots.append(path)
        seen[frame] = seen.get(frame, 0) + 1
        time.sleep(0.15)
    assert len(seen) == count, f"saw frames {sorted(seen)} of {count}"
    return shots


def answer_video(pngs, out):
    """The signer's answer frames as a looping camera picture: each frame 0.5 s, 640x640, y4m."""
    listing = out.with_suffix(".txt")
    listing.write_text("".join(f"file '{p}'\nduration 0.5\n" for p in pngs) + f"file '{pngs[-1]}'\n")
    subprocess.run(
        [
            "ffmpeg", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(listing),
            "-vf", "scale=640:640:force_original_aspect_ratio=decrease:flags=neighbor,"
            "pad=640:640:(ow-iw)/2:(oh-ih)/2:white,format=yuv420p",
            "-r", "10", str(out),
        ],
        check=True,
    )  # fmt: skip
    return out


def test_round_trip_in_the_browser(run, bin_dir, home, regtest_node, tmp_path):
    node = regtest_node
    work = tmp_path / "work"
    work.mkdir()
    vault = Vault(bin_dir, home.env, home.root, "solo", mnemonic=new_mnemonic())
    vault.run("export", "--script", "wpkh", "--qr", str(work / "export.png"), check=True)
    served = start_serve(bin_dir, home.env)
    driver = browser(height=1700)
    try:
        login(driver, served)
        # Nodes: the regtest node's Electrum server.
        go(driver, served, "nodes")
        driver.find_element(By.ID, "node-url").send_keys(f"electrum://127.0.0.1:{node.electrum_port}")
        driver.find_element(By.CSS_SELECTOR, "main button").click()
        wait_for(lambda: "node saved" in banner(driver), what="the node saved")
        screenshot(driver, "nodes")
        # Wallets: import by scanning the signer's account QR (an image file through the page's scanner).
        go(driver, served, "wallets")
        driver.find_element(By.ID, "import-name").send_keys("solo")
        Select(driver.find_element(By.ID, "import-network")).select_by_value("regtest")
        driver.find_element(By.ID, "upload").send_keys(str(work / "export.png"))
        wait_for(lambda: "imported solo" in banner(driver), what="the import")
        screenshot(driver, "wallets")
        receive_address = json.loads(run("airlock-watcher", "receive", "--json", check=True).stdout)["address"]
        node.send_to(receive_address, 250_000)
        node.send_to(receive_address, 90_000)
        node.mine(1)
        # Overview: sync with its progress, then the balance.
        go(driver, served, "overview")
        driver.find_element(By.CSS_SELECTOR, "[data-sync='solo']").click()
        wait_for(
            lambda: (
                driver.find_element(By.CSS_SELECTOR, "[data-wallet='solo'] .big").get_attribute("data-total")
                == "340000"
            ),
            what="the synced balance",
        )
        screenshot(driver, "overview")
        # History: a label with markup, edited in the page, kept as text.
        go(driver, served, "history")
        label = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "input.label-edit"), what="history rows")
        label.send_keys(XSS + Keys.TAB)
        wait_for(lambda: "label saved" in banner(driver), what="the label saved")
        go(driver, served, "utxos")
        go(driver, served, "history")
        label = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "input.label-edit"), what="history rows")
        assert label.get_attribute("value") == XSS and driver.title == "Airlock watcher"
        labels = json.loads(run("airlock-watcher", "history", "--json", check=True).stdout)
        assert XSS in [entry["label"] for entry in labels]
        screenshot(driver, "history")
        go(driver, served, "utxos")
        # Coin control: the 250,000 sat coin alone is spent.
        coins = json.loads(run("airlock-watcher", "utxos", "--json", check=True).stdout)
        [big] = [c["outpoint"] for c in coins if c["value"] == 250_000]
        driver.find_element(By.CSS_SELECTOR, f"input.choose[data-outpoint='{big}']").click()
        screenshot(driver, "coins")
        driver.find_element(By.ID, "spend-chosen").click()
        wait_for(lambda: "1 chosen coin" in driver.find_element(By.ID, "chosen-coins").text, what="the chosen coin")
        go(driver, served, "receive")
        driver.find_element(By.ID, "amount").send_keys("0.001btc")
        driver.find_element(By.CSS_SELECTOR, "main button").click()
        wait_for(lambda: driver.find_element(By.ID, "uri").text.startswith("bitcoin:"), what="the receive QR")
        screenshot(driver, "receive")
        # Send: the request as an animated QR in the page; its frames captured from the page.
        outside = outside_address()
        go(driver, served, "send")
        driver.find_element(By.CSS_SELECTOR, ".recipient .address").send_keys(outside)
        driver.find_element(By.CSS_SELECTOR, ".recipient .amount").send_keys("120000sat")
        driver.find_element(By.ID, "fee-rate").send_keys("2")
        driver.find_element(By.ID, "create").click()
        request = wait_for(lambda: driver.find_element(By.ID, "request"), what="the request")
        count = int(request.get_attribute("data-frames"))
        screenshot(driver, "send")
        shots = captured_frames(driver, work, count)
        signed = json.loads(vault.sign(*shots, args=("--qr", str(work / "signed.png"), "--json")).stdout)
        assert signed["verdict"] == "signed"
        answer = sorted(work.glob("signed*.png"))
        video = answer_video(answer, work / "answer.y4m")
    finally:
        driver.quit()
    # Scan: Chromium's camera is the answer's video.
    camera = browser(fake_video=video, height=1500)
    try:
        login(camera, served)
        go(camera, served, "scan")
        camera.find_element(By.ID, "camera").click()
        lines = wait_for(
            lambda: camera.find_element(By.ID, "review-lines").text, timeout=120, what="the answer decoded"
        )
        assert "Ready to send" in camera.find_element(By.ID, "review").text
        assert outside in lines and "0.00120000 BTC" in lines
        camera.execute_script("window.scrollTo(0, 0)")
        screenshot(camera, "scan")
        camera.find_element(By.ID, "broadcast").click()
        shown = wait_for(lambda: banner(camera), what="the broadcast's answer")
        assert shown.startswith("sent: "), shown
        sent = shown.removeprefix("sent: ")
        assert sent == signed["txid"]
        assert sent in node.cli("getrawmempool")
        spent = [f"{i['txid']}:{i['vout']}" for i in node.cli("getrawtransaction", sent, 1)["vin"]]
        assert spent == [big], spent
        node.mine(1)
        go(camera, served, "overview")
        camera.find_element(By.CSS_SELECTOR, "[data-sync='solo']").click()
        left = 340_000 - 120_000 - signed["fee"]
        shown = wait_for(
            lambda: (
                camera.find_element(By.CSS_SELECTOR, "[data-wallet='solo'] .big").get_attribute("data-total")
                == str(left)
            ),
            what="the overview after the sync",
        )
        assert shown
        expected = json.loads(run("airlock-watcher", "balance", "--json", check=True).stdout)
        assert expected["total"] == left and expected["unconfirmed"] == 0
        assert outside_holds(node, outside) == [(sent, 120_000)]
    finally:
        camera.quit()
        served.stop()


def send_in_page(driver, served, work, to: str, amount: str) -> list:
    """Fills the send page, creates the request and returns the frames captured from the page."""
    go(driver, served, "send")
    driver.find_element(By.CSS_SELECTOR, ".recipient .address").send_keys(to)
    driver.find_element(By.CSS_SELECTOR, ".recipient .amount").send_keys(amount)
    driver.find_element(By.ID, "fee-rate").send_keys("2")
    driver.find_element(By.ID, "create").click()
    request = wait_for(lambda: driver.find_element(By.ID, "request"), what="the request")
    return captured_frames(driver, work, int(request.get_attribute("data-frames")))


def test_multisig_2_of_3_combined_from_two_scans(run, bin_dir, home, regtest_node, tmp_path):
    """Two cosigners sign the same request apart; the scan page reads one answer through the camera and the other
    as an uploaded animated GIF, combines them with the kept request, and broadcasts."""
    import segno
    from signer_psbt import multisig_descriptor

    node = regtest_node
    work = tmp_path / "work"
    work.mkdir()
    vaults = [Vault(bin_dir, home.env, home.root, name) for name in ("alice", "bob", "carol")]
    descriptor = multisig_descriptor([v.export("wsh-multi") for v in vaults])
    wallet_png = work / "wallet.png"
    segno.make(descriptor, error="l", micro=False).save(str(wallet_png), scale=4, border=4)
    for v in vaults:
        v.run("multisig", "register", str(wallet_png), "--name", "team", "--json", "--yes", check=True)
    run("airlock-watcher", "import", "-", "--name", "team", "--network", "regtest", input=descriptor, check=True)
    run("airlock-watcher", "node", "set", f"electrum://127.0.0.1:{node.electrum_port}", check=True)
    address = json.loads(run("airlock-watcher", "receive", "--json", check=True).stdout)["address"]
    node.send_to(address, 400_000)
    node.mine(1)
    run("airlock-watcher", "sync", check=True)
    served = start_serve(bin_dir, home.env)
    outside = outside_address()
    driver = browser(height=1700)
    try:
        login(driver, served)
        shots = send_in_page(driver, served, work, outside, "150000sat")
    finally:
        driver.quit()
    # Alice and Bob each sign the request as captured; neither sees the other's answer.
    alice = json.loads(vaults[0].sign(*shots, args=("--qr", str(work / "alice.png"), "--json")).stdout)
    bob = json.loads(vaults[1].sign(*shots, args=("--qr", str(work / "bob.gif"), "--fps", "4", "--json")).stdout)
    assert alice["verdict"] == bob["verdict"] == "signed" and alice["txid"] == bob["txid"]
    video = answer_video(sorted(work.glob("alice*.png")), work / "alice.y4m")
    camera = browser(fake_video=video, height=1500)
    try:
        login(camera, served)
        go(camera, served, "scan")
        camera.find_element(By.ID, "camera").click()
        wait_for(lambda: "Not complete yet" in camera.find_element(By.ID, "review").text, timeout=120, what="Alice")
        assert "1 answer(s)" in camera.find_element(By.ID, "answers").text
        # Bob's answer as an uploaded animated GIF.
        camera.find_element(By.ID, "upload").send_keys(str(work / "bob.gif"))
        wait_for(lambda: "Ready to send" in camera.find_element(By.ID, "review").text, timeout=120, what="Bob")
        assert "2 answer(s)" in camera.find_element(By.ID, "answers").text
        assert outside in camera.find_element(By.ID, "review-lines").text
        camera.find_element(By.ID, "broadcast").click()
        shown = wait_for(lambda: banner(camera), what="the broadcast's answer")
        assert shown == f"sent: {alice['txid']}", shown
        assert alice["txid"] in node.cli("getrawmempool")
        node.mine(1)
        assert outside_holds(node, outside) == [(alice["txid"], 150_000)]
        run("airlock-watcher", "sync", check=True)
        balance = json.loads(run("airlock-watcher", "balance", "--json", check=True).stdout)
        go(camera, served, "overview")
        shown_total = wait_for(
            lambda: camera.find_element(By.CSS_SELECTOR, "[data-wallet='team'] .big").get_attribute("data-total"),
            what="the overview",
        )
        assert int(shown_total) == balance["total"] == 400_000 - 150_000 - alice["fee"]
    finally:
        camera.quit()
        served.stop()


def scan_answer_and_broadcast(served, video) -> str:
    """A browser whose camera is `video`: the scan page reads the answer; Broadcast; returns the banner."""
    camera = browser(fake_video=video, height=1200)
    try:
        login(camera, served)
        go(camera, served, "scan")
        camera.find_element(By.ID, "camera").click()
        button = wait_for(lambda: camera.find_element(By.ID, "broadcast"), timeout=120, what="the answer decoded")
        button.click()
        return wait_for(lambda: banner(camera), timeout=90, what="the broadcast's answer")
    finally:
        camera.quit()


def eth_request_frames(served, work, name: str, to: str, amount: str, token: str) -> list:
    """Syncs the account in the overview, fills the Ethereum send page, and captures the request's frames."""
    driver = browser(height=1700)
    try:
        login(driver, served)
        go(driver, served, "overview")
        driver.find_element(By.CSS_SELECTOR, "[data-sync]").click()
        wait_for(
            lambda: driver.find_element(By.CSS_SELECTOR, "[data-account] .big").get_attribute("data-wei") != "0",
            what="the synced account",
        )
        go(driver, served, "send")
        driver.find_element(By.ID, "to").send_keys(to)
        driver.find_element(By.ID, "amount").send_keys(amount)
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "create").click()
        request = wait_for(lambda: driver.find_element(By.ID, "request"), what="the request")
        screenshot(driver, f"send-{name}")
        (work / name).mkdir()
        return captured_frames(driver, work / name, int(request.get_attribute("data-frames")))
    finally:
        driver.quit()


def test_eth_and_token_round_trip_in_the_browser(run, home, devnet, w3, tmp_path, bin_dir):  # noqa: F811
    """ETH and an ERC-20 payment on the devnet: send in the page, the page's frames to the signer, its answer
    through the camera, Broadcast; the chain moves the value and the overview shows `balance --json`."""
    watcher, signer = make_wallet(run, home, devnet, tmp_path)
    fund(devnet, 10**18, 5_000_000)
    work = tmp_path / "work"
    work.mkdir()
    served = start_serve(bin_dir, home.env)
    try:
        payments = [("eth", RECIPIENT, "0.01eth", "", 10**16), ("att", TOKEN_RECIPIENT, "1.5", "ATT", 1_500_000)]
        for name, to, amount, token, moved in payments:
            before = token_balance(w3, devnet["token"], to) if token else w3.eth.get_balance(to)
            shots = eth_request_frames(served, work, name, to, amount, token)
            signer("sign", *map(str, shots), "--yes", "--qr", str(work / f"{name}-signature.png"))
            video = answer_video(sorted(work.glob(f"{name}-signature*.png")), work / f"{name}.y4m")
            shown = scan_answer_and_broadcast(served, video)
            assert shown.startswith("sent: 0x"), shown
            w3.eth.wait_for_transaction_receipt(shown.removeprefix("sent: "), timeout=60)
            after = token_balance(w3, devnet["token"], to) if token else w3.eth.get_balance(to)
            assert after - before == moved, name
        watcher("sync")
        expected = json.loads(watcher("balance", "--json").stdout)
        shown_account = served.login().get_json("/api/overview")["ethereum"][0]
        assert shown_account["wei"] == expected["wei"], (shown_account, expected)
    finally:
        served.stop()
