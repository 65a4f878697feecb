"""Shared fixtures: the gnubg reference peer."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from gnubg_peer import GnubgPeer, find_peer

REQUIRE_GNUBG = os.environ.get("MATHBG_REQUIRE_GNUBG") == "1"


@pytest.fixture(scope="session")
def gnubg() -> GnubgPeer:
    """The installed gnubg; skips (or fails under MATHBG_REQUIRE_GNUBG=1) when absent."""
    peer = find_peer()
    if peer is None:
        reason = (
            "gnubg (the reference peer) is not installed: "
            "apt-get install -y gnubg, or run bash .ci/run"
        )
        if REQUIRE_GNUBG:
            pytest.fail(reason + " (MATHBG_REQUIRE_GNUBG=1 forbids skipping)")
        pytest.skip(reason)
    return peer
