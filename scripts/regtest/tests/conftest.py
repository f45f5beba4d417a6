"""The regtest node's own tests: the node itself (its process, chain, mempool, Electrum and RPC servers, wallet RPCs)
and real clients syncing from it (BDK, Electrum). The product's end-to-end suite is Tests/e2e; both use the fixtures
of `regtest.testing`. Run with `.venv/bin/python -m pytest -q scripts/regtest/tests`."""

from regtest.testing import fresh_regtest_node, regtest_node  # noqa: F401  (pytest fixtures)
