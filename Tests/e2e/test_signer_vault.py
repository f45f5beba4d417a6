"""airlock-signer vault commands end to end (docs/architecture.md sections 2-5): init with the backup check, restore cross-checked
against embit, passwd, info, export in every format, address, multisig, audit, selftest, crash safety, and a scan
proving no file the signer writes holds a secret. Small Argon2 (--kdf-memory 64) keeps it fast."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path

from embit import bip32, bip39, script
from embit.networks import NETWORKS

# BIP39 vector (trezor/python-mnemonic vectors.json, entropy 7f7f…7f, 12 words).
MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"
NET = NETWORKS["regtest"]
KDF = ["--kdf-memory", "64"]


def secret_file(home, name: str, text: str) -> str:
    path = home.root / name
    path.write_text(text + "\n")
    return str(path)


def restore(run, home, mnemonic=MNEMONIC, password="pw-one", extra=()):
    words = secret_file(home, "words.txt", mnemonic)
    pw = secret_file(home, "pw.txt", password)
    return run(
        "airlock-signer",
        "restore",
        "--mnemonic-file",
        words,
        "--password-file",
        pw,
        "--network",
        "regtest",
        *KDF,
        *extra,
    )


def embit_root(mnemonic=MNEMONIC, passphrase=""):
    return bip32.HDKey.from_seed(bip39.mnemonic_to_seed(mnemonic, passphrase), version=NET["xprv"])


SCRIPTS = {
    "wpkh": ("84h", lambda pub: script.p2wpkh(pub), "wpkh({})"),
    "sh-wpkh": ("49h", lambda pub: script.p2sh(script.p2wpkh(pub)), "sh(wpkh({}))"),
    "pkh": ("44h", lambda pub: script.p2pkh(pub), "pkh({})"),
    "tr": ("86h", lambda pub: script.p2tr(pub), "tr({})"),
}


def test_restore_matches_embit(run, home):
    proc = restore(run, home, extra=("--json",))
    assert proc.returncode == 0, proc.stderr
    root = embit_root()
    fp = root.my_fingerprint.hex()
    assert json.loads(proc.stdout)["master_fingerprint"] == fp
    pw = str(home.root / "pw.txt")
    for name, (purpose, make, template) in SCRIPTS.items():
        account = root.derive(f"m/{purpose}/1h/0h")
        xpub = account.to_public().to_base58(version=NET["xpub"])
        out = run("airlock-signer", "export", "--script", name, "--password-file", pw, check=True)
        expected = template.format(f"[{fp}/{purpose}/1h/0h]{xpub}/<0;1>/*")
        assert out.stdout.decode().strip().startswith(expected + "#"), (name, out.stdout)
        for change, index in [(False, 0), (False, 7), (True, 3)]:
            args = ["address", "--script", name, "--index", str(index), "--password-file", pw, "--json"]
            if change:
                args.append("--change")
            got = json.loads(run("airlock-signer", *args, check=True).stdout)
            pub = account.derive(f"m/{1 if change else 0}/{index}").key
            assert got["address"] == make(pub).address(NET), (name, change, index)
            assert got["origin"] == f"[{fp}/{purpose}/1h/0h/{1 if change else 0}/{index}]"
    # The BIP48 cosigner key.
    cosigner = root.derive("m/48h/1h/0h/2h").to_public().to_base58(version=NET["xpub"])
    out = run("airlock-signer", "export", "--script", "wsh-multi", "--password-file", pw, check=True)
    assert out.stdout.decode().strip() == f"[{fp}/48h/1h/0h/2h]{cosigner}"


def test_restore_typo_gets_a_hint(run, home):
    proc = restore(run, home, mnemonic=MNEMONIC.replace("winner", "winnner", 1))
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "word 2 is not in the BIP39" in err and "winner" in err
    assert not home.vault.exists()
    proc = restore(run, home, mnemonic=MNEMONIC.replace("yellow", "legal"))
    assert proc.returncode == 2 and b"checksum" in proc.stderr


def test_init_with_backup_check(run, home, bin_dir):
    pw = secret_file(home, "pw.txt", "pw-init")
    proc = subprocess.Popen(
        [
            str(bin_dir / "airlock-signer"),
            "init",
            "--words",
            "12",
            "--network",
            "regtest",
            "--password-file",
            pw,
            "--json",
            "--show-secret",
            *KDF,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=home.env,
    )
    lines = []
    while not lines or lines[-1] != b"}\n":
        lines.append(proc.stdout.readline())
    words = json.loads(b"".join(lines))["mnemonic"].split()
    assert len(words) == 12 and bip39.mnemonic_is_valid(" ".join(words))
    asked = []
    while len(asked) < 3:
        line = proc.stderr.readline().decode()
        assert line, "the check ended early"
        match = re.match(r"word #(\d+)\?", line)
        if match:
            asked.append(int(match.group(1)))
            proc.stdin.write((words[asked[-1] - 1] + "\n").encode())
            proc.stdin.flush()
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    assert len(set(asked)) == 3
    info = json.loads(run("airlock-signer", "info", "--json", "--password-file", pw, check=True).stdout)
    assert info["master_fingerprint"] == embit_root(" ".join(words)).my_fingerprint.hex()
    assert info["network"] == "regtest"
    assert oct(home.vault.stat().st_mode & 0o777) == "0o600"
    # Refused without --force.
    again = run("airlock-signer", "init", "--password-file", pw, "--skip-backup-check", "--show-secret", *KDF)
    assert again.returncode == 4 and b"--force" in again.stderr


def test_backup_check_failure_writes_nothing(run, home):
    pw = secret_file(home, "pw.txt", "pw-init")
    proc = run(
        "airlock-signer", "init", "--words", "12", "--password-file", pw, "--show-secret", *KDF, input="nope\n" * 9
    )
    assert proc.returncode == 4
    assert b"backup check failed" in proc.stderr
    assert not home.vault.exists()


def test_backup_show_and_verify(run, home):
    restore(run, home)
    pw = str(home.root / "pw.txt")
    refused = run("airlock-signer", "backup", "show", "--password-file", pw)
    assert refused.returncode == 4 and MNEMONIC.encode() not in refused.stdout
    shown = run("airlock-signer", "backup", "show", "--show-secret", "--password-file", pw, "--json", check=True)
    assert json.loads(shown.stdout)["mnemonic"] == MNEMONIC
    bad = run("airlock-signer", "backup", "verify", "--password-file", pw, input="zoo\n" * 9)
    assert bad.returncode == 4


def test_passwd_wrong_password_tampered_corrupt(run, home):
    restore(run, home)
    old = str(home.root / "pw.txt")
    new = secret_file(home, "new.txt", "pw-two")
    run("airlock-signer", "passwd", "--password-file", old, "--new-password-file", new, check=True)
    wrong = run("airlock-signer", "export", "--password-file", old)
    assert wrong.returncode == 3 and b"wrong password" in wrong.stderr
    run("airlock-signer", "export", "--password-file", new, check=True)
    text = home.vault.read_text()
    home.vault.write_text(text.replace('"regtest"', '"test"'))
    tampered = run("airlock-signer", "export", "--password-file", new)
    assert tampered.returncode == 3 and b"tampered" in tampered.stderr
    home.vault.write_text("{ not json")
    corrupt = run("airlock-signer", "export", "--password-file", new)
    assert corrupt.returncode == 2 and b"corrupt" in corrupt.stderr


def test_network_interfaces_refused_without_override(run, home, bin_dir):
    restore(run, home)
    env = dict(home.env)
    env.pop("AIRLOCK_ALLOW_NETWORK")
    selftest = json.loads(run("airlock-signer", "selftest", "--json", check=True).stdout)
    proc = subprocess.run(
        [str(bin_dir / "airlock-signer"), "export", "--password-file", str(home.root / "pw.txt")],
        env=env,
        capture_output=True,
    )
    if selftest["interfaces_up"]:
        assert proc.returncode == 4
        assert all(name.encode() in proc.stderr for name in selftest["interfaces_up"])
    else:
        assert proc.returncode == 0


def test_info_and_export_formats(run, home, tmp_path):
    restore(run, home)
    pw = str(home.root / "pw.txt")
    info = json.loads(run("airlock-signer", "info", "--json", "--password-file", pw, check=True).stdout)
    root = embit_root()
    assert info["master_fingerprint"] == root.my_fingerprint.hex()
    assert info["passphrase_stored"] is False and info["multisig"] == []
    generic = json.loads(run("airlock-signer", "export", "--format", "json", "--password-file", pw, check=True).stdout)
    assert generic["xfp"] == root.my_fingerprint.hex().upper() and generic["chain"] == "XRT"
    bip84 = root.derive("m/84h/1h/0h")
    assert generic["bip84"]["xpub"] == bip84.to_public().to_base58(version=NET["xpub"])
    assert generic["bip84"]["_pub"] == bip84.to_public().to_base58(version=NET["zpub"])
    assert generic["bip84"]["deriv"] == "m/84'/1'/0'"
    assert generic["bip84"]["first"] == script.p2wpkh(bip84.derive("m/0/0").key).address(NET)
    assert generic["bip48_2"]["xpub"] == root.derive("m/48h/1h/0h/2h").to_public().to_base58(version=NET["xpub"])
    ur = run("airlock-signer", "export", "--format", "ur", "--password-file", pw, check=True).stdout.decode()
    assert ur.startswith("UR:CRYPTO-ACCOUNT/")
    out = tmp_path / "acct.png"
    run("airlock-signer", "export", "--format", "ur", "--qr", str(out), "--password-file", pw, check=True)
    pngs = sorted(tmp_path.glob("acct*.png"))
    assert pngs and all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)
    # A descriptor QR reads back through inspect (the shared PNG input reader).
    desc_png = tmp_path / "desc.png"
    run("airlock-signer", "export", "--qr", str(desc_png), "--password-file", pw, check=True)
    inspected = json.loads(run("airlock-signer", "inspect", str(desc_png), "--json", check=True).stdout)
    assert inspected["scripts"][0] == script.p2wpkh(bip84.derive("m/0/0").key).data.hex()
    desc_file = tmp_path / "desc.txt"
    run("airlock-signer", "export", "--out", str(desc_file), "--password-file", pw, check=True)
    assert desc_file.read_text().startswith("wpkh([")


def test_multisig_register_and_list(run, home):
    restore(run, home)
    pw = str(home.root / "pw.txt")
    ours = run("airlock-signer", "export", "--script", "wsh-multi", "--password-file", pw, check=True)
    key = ours.stdout.decode().strip()
    fp, xpub = key[1:9], key.split("]")[1]
    others = []
    for seed in (b"\x01" * 32, b"\x02" * 32):
        r = bip32.HDKey.from_seed(seed, version=NET["xprv"])
        others.append((r.my_fingerprint.hex(), r.derive("m/48h/1h/0h/2h").to_public().to_base58(version=NET["xpub"])))
    text = "# exported by a coordinator\nName: team\nPolicy: 2 of 3\nDerivation: m/48'/1'/0'/2'\nFormat: P2WSH\n\n"
    text += f"{fp.upper()}: {xpub}\n" + "".join(f"{f.upper()}: {x}\n" for f, x in others)
    wallet = home.root / "wallet.txt"
    wallet.write_text(text)
    reg = run(
        "airlock-signer", "multisig", "register", str(wallet), "--password-file", pw, "--json", "--yes", check=True
    )
    assert json.loads(reg.stdout)["threshold"] == 2
    listed = json.loads(run("airlock-signer", "multisig", "list", "--json", "--password-file", pw, check=True).stdout)
    assert [w["name"] for w in listed] == ["team"]
    assert listed[0]["descriptor"].startswith("wsh(sortedmulti(2,")
    dup = run("airlock-signer", "multisig", "register", str(wallet), "--password-file", pw, "--yes")
    assert dup.returncode == 2
    # A wallet without this vault's key is refused.
    third = bip32.HDKey.from_seed(b"\x03" * 32, version=NET["xprv"])
    foreign = [(third.my_fingerprint.hex(), third.derive("m/48h/1h/0h/2h").to_public().to_base58(version=NET["xpub"]))]
    keys = ",".join(f"[{f}/48h/1h/0h/2h]{x}/<0;1>/*" for f, x in others + foreign)
    proc = run(
        "airlock-signer",
        "multisig",
        "register",
        "-",
        "--name",
        "other",
        "--password-file",
        pw,
        "--yes",
        input=f"wsh(sortedmulti(2,{keys}))\n",
    )
    assert proc.returncode == 4 and b"not one of the cosigners" in proc.stderr
    assert (
        json.loads(run("airlock-signer", "info", "--json", "--password-file", pw, check=True).stdout)["multisig"][0][
            "name"
        ]
        == "team"
    )


def audit_hash(entry: dict) -> bytes:
    """The canonical encoding of docs/formats.md, reimplemented here."""
    out = bytearray()
    u64 = lambda v: out.extend(v.to_bytes(8, "big"))  # noqa: E731

    def blob(b: bytes):
        u64(len(b))
        out.extend(b)

    def opt(v):
        if v is None:
            out.append(0)
        else:
            out.append(1)
            u64(v)

    blob(b"airlock-audit-v1")
    u64(entry["seq"])
    blob(entry["time"].encode())
    blob(bytes.fromhex(entry["psbt_sha256"]))
    blob(entry["txid"].encode())
    u64(len(entry["destinations"]))
    for d in entry["destinations"]:
        blob(d["address"].encode())
        u64(d["amount"])
    opt(entry.get("change"))
    opt(entry.get("fee"))
    if entry.get("note") is None:
        out.append(0)
    else:
        out.append(1)
        blob(entry["note"].encode())
    blob(bytes.fromhex(entry["prev"]))
    return hashlib.sha256(out).digest()


def test_a_planted_unkeyed_journal_is_refused(run, home):
    """An older build's unkeyed journal (SHA-256 chain, written here from docs/formats.md) planted beside a vault that
    records an empty head: `audit` still lists it, `audit --verify` refuses it (exit 3). The control: the vault's own
    empty journal verifies."""
    restore(run, home)
    pw = str(home.root / "pw.txt")
    empty = run("airlock-signer", "audit", "--verify", "--json", "--password-file", pw, check=True)
    assert json.loads(empty.stdout)["entries"] == 0 and json.loads(empty.stdout)["anchored"] is True
    prev = bytes(32)
    lines = []
    for n in range(1, 5):
        entry = {
            "seq": n,
            "time": f"2025-01-0{n}T00:00:00Z",
            "psbt_sha256": hashlib.sha256(b"%d" % n).hexdigest(),
            "txid": f"{n:064x}",
            "destinations": [{"address": "bcrt1qdest", "amount": 1000 * n}],
            "fee": 200,
            "prev": prev.hex(),
        }
        prev = audit_hash(entry)
        entry["hash"] = prev.hex()
        lines.append(json.dumps(entry, sort_keys=True, separators=(",", ":")))
    log = Path(str(home.vault) + ".audit")
    log.write_text("\n".join(lines) + "\n")
    shown = json.loads(run("airlock-signer", "audit", "--json", check=True).stdout)
    assert [e["seq"] for e in shown] == [1, 2, 3, 4]
    bad = run("airlock-signer", "audit", "--verify", "--password-file", pw)
    assert bad.returncode == 3 and b"line 1" in bad.stderr and b"unkeyed" in bad.stderr


def test_selftest(run):
    proc = run("airlock-signer", "selftest", "--json", check=True)
    out = json.loads(proc.stdout)
    assert out["socket"] == "failed with EPERM" and out["seccomp_mode"] == 2 and out["ok"] is True


def secrets_of(mnemonic: str):
    """Every encoding of the seed material that must never reach a file."""
    entropy = bip39.mnemonic_to_bytes(mnemonic)
    seed = bip39.mnemonic_to_seed(mnemonic)
    root = embit_root(mnemonic)
    found = [mnemonic.encode(), " ".join(mnemonic.split()[:3]).encode()]
    for blob in (entropy, seed):
        found += [blob.hex().encode(), base64.b64encode(blob), blob]
    found.append(root.to_base58(version=NET["xprv"]).encode())
    for path in ("m/84h/1h/0h", "m/84h/1h/0h/0/0", "m/44h/1h/0h/0/0", "m/86h/1h/0h/0/0"):
        key = root.derive(path)
        found.append(key.to_base58(version=NET["xprv"]).encode())
        found.append(key.key.wif(NET).encode())
        found.append(key.key.secret.hex().encode())
    return found


def test_no_file_holds_a_secret(run, home, tmp_path):
    restore(run, home)
    pw = str(home.root / "pw.txt")
    new = secret_file(home, "new.txt", "pw-two")
    run("airlock-signer", "passwd", "--password-file", pw, "--new-password-file", new, check=True)
    run(
        "airlock-signer",
        "export",
        "--format",
        "json",
        "--out",
        str(home.vault.parent / "export.json"),
        "--password-file",
        new,
        check=True,
    )
    run(
        "airlock-signer",
        "export",
        "--format",
        "ur",
        "--qr",
        str(home.vault.parent / "acct.png"),
        "--password-file",
        new,
        check=True,
    )
    files = [p for p in home.vault.parent.rglob("*") if p.is_file()]
    assert len(files) >= 3
    needles = secrets_of(MNEMONIC)
    for path in files:
        data = path.read_bytes()
        for needle in needles:
            assert needle not in data, f"{path.name} holds secret material"


def unlocks(run, password_file: str) -> int:
    return run("airlock-signer", "backup", "show", "--show-secret", "--password-file", password_file).returncode


class KillCampaign:
    """SIGKILLs a command that replaces the vault, many times, at three kinds of moment in turn:

    - early: at a random time before the command created its temporary file (while it derives keys);
    - writing: as soon as a new temporary file appears in the vault's directory, after a random 0-2 ms (during the
      write, the fsync or the rename);
    - renamed: as soon as the vault's inode changes (the rename is done; the kill lands during the directory fsync,
      the clean-up or just after the exit).

    After each kill the vault must open with the old or the new password. The check is cheap when nothing changed:
    the vault file's bytes are compared with the bytes last seen to open with a known password (decryption is a
    function of those bytes and the password); whenever the bytes differ, the vault is opened through the CLI.
    """

    def __init__(self, run, home, seed: int):
        self.run, self.home = run, home
        self.rng = random.Random(seed)
        self.before = self.after = self.after_while_running = 0
        self.temp_after: float | None = None  # the shortest time seen from the start to the temporary file

    def _new_temp(self, existing: set[str]) -> bool:
        prefix = f".{self.home.vault.name}.tmp-"
        return any(n.startswith(prefix) and n not in existing for n in os.listdir(self.home.vault.parent))

    def kill_once(self, argv: list[str], mode: int) -> None:
        vault = self.home.vault
        existing = set(os.listdir(vault.parent))
        inode = vault.stat().st_ino
        start = time.monotonic()
        proc = subprocess.Popen(argv, env=self.home.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if mode == 0:
            time.sleep(self.rng.uniform(0, self.temp_after or 0.05))
        else:
            while proc.poll() is None:
                if mode == 1 and self._new_temp(existing):
                    # The temporary file appeared: the keys are derived, the write starts now.
                    elapsed = time.monotonic() - start
                    self.temp_after = elapsed if self.temp_after is None else min(self.temp_after, elapsed)
                    time.sleep(self.rng.uniform(0, 0.002))
                    break
                if mode == 2 and os.stat(vault).st_ino != inode:
                    break
                time.sleep(0.0002)
        proc.send_signal(signal.SIGKILL)
        code = proc.wait()
        if mode == 2 and code == -signal.SIGKILL and vault.stat().st_ino != inode:
            self.after_while_running += 1

    def check(self, state: dict) -> None:
        """`state`: {"bytes": the vault bytes known to open with "current", "current", "other"}; updated in place."""
        data = self.home.vault.read_bytes()
        if data == state["bytes"]:
            self.before += 1
            return
        assert unlocks(self.run, state["other"]) == 0, "the vault changed but does not open with the new password"
        state["bytes"], state["current"], state["other"] = data, state["other"], state["current"]
        self.after += 1


def crash_campaign(run, home, bin_dir, runs: int, seed: int, argv_for) -> KillCampaign:
    """Runs `runs` kills of `argv_for(current, other)` (which replaces the vault sealed with `other`)."""
    restore(run, home)
    state = {
        "bytes": home.vault.read_bytes(),
        "current": str(home.root / "pw.txt"),
        "other": secret_file(home, "b.txt", "pw-b"),
    }
    assert unlocks(run, state["current"]) == 0
    campaign = KillCampaign(run, home, seed)
    for n in range(runs):
        campaign.kill_once([str(bin_dir / "airlock-signer"), *argv_for(state["current"], state["other"])], (n + 1) % 3)
        campaign.check(state)
    # Whatever the last kill left, the vault opens with the password the campaign believes in, through the CLI.
    assert unlocks(run, state["current"]) == 0
    assert campaign.before > 0 and campaign.after > 0, (campaign.before, campaign.after)
    assert campaign.after_while_running > 0, "no kill landed between the rename and the exit"
    print(
        f"{runs} kills: {campaign.before} left the vault as it was, {campaign.after} replaced it "
        f"({campaign.after_while_running} of them killed the process after its rename)"
    )
    return campaign


RUNS = 201  # 67 kills at each kind of moment (the issue asks for 200 runs of each command)


def test_passwd_survives_sigkill(run, home, bin_dir):
    crash_campaign(
        run,
        home,
        bin_dir,
        RUNS,
        1,
        lambda current, other: ["passwd", "--password-file", current, "--new-password-file", other],
    )
    data = b"".join(p.read_bytes() for p in home.vault.parent.iterdir() if p.is_file())
    assert all(n not in data for n in secrets_of(MNEMONIC))


def test_init_force_survives_sigkill(run, home, bin_dir):
    crash_campaign(
        run,
        home,
        bin_dir,
        RUNS,
        2,
        lambda current, other: [
            "init",
            "--force",
            "--words",
            "12",
            "--network",
            "regtest",
            "--password-file",
            other,
            "--skip-backup-check",
            "--show-secret",
            *KDF,
        ],
    )
