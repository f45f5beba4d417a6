"""Fixtures for the development node's own tests: a node process on a free loopback port, and web3.py on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
# The node's modules for the tests that drive them in process (scripts/test runs pytest from the repository root).
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def start_node(*args: str) -> tuple[subprocess.Popen, dict]:
    env = dict(os.environ, PYTHONPATH=str(HERE))
    proc = subprocess.Popen(
        [sys.executable, "-m", "devnet.node", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    line = proc.stdout.readline()
    assert line, "the devnet node printed nothing"
    return proc, json.loads(line)


def stop_node(proc: subprocess.Popen) -> None:
    proc.terminate()
    assert proc.wait(timeout=30) == 0


@pytest.fixture(scope="module")
def node():
    proc, info = start_node()
    yield info
    stop_node(proc)


@pytest.fixture(scope="module")
def w3(node):
    from web3 import Web3

    return Web3(Web3.HTTPProvider(f"http://127.0.0.1:{node['rpc']}", request_kwargs={"timeout": 60}))
