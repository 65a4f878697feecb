"""gnubg's neural networks: :class:`Network`, :class:`Networks` and their weights files.

GNU Backgammon evaluates a position with one of three networks chosen by the position's
class (contact, crashed, race), each a perceptron with one hidden layer of 128 sigmoid
units and five sigmoid outputs (W, WG, WB, LG, LB, gammons cumulative):

.. math::

    h_k = \\sigma\\bigl(\\beta_h (t_k + \\textstyle\\sum_i x_i W_{ik})\\bigr), \\qquad
    y_o = \\sigma\\bigl(\\beta_o (u_o + \\textstyle\\sum_k h_k V_{ok})\\bigr)

with :math:`\\sigma(z) = 1/(1 + e^{-z})` computed from gnubg's table of :math:`e^{k/10}`
(:mod:`mathbg.analysis.net`). gnubg ships them as ``gnubg.wd`` (binary: the magic float
472.3782, the version 1.0, then per network its input, hidden and output counts, a training
count, :math:`\\beta_h`, :math:`\\beta_o`, the hidden weights input by input, the output
weights output by output, the hidden thresholds and the output thresholds, little-endian
32-bit) and ``gnubg.weights`` (the same numbers as text after a ``GNU Backgammon 1.00``
line). Both files hold six networks: contact, race, crashed, then three small pruning
networks (200 inputs) that gnubg's n-ply search uses to pick candidate plays.

:func:`shipped_networks` reads gnubg 1.07's ``gnubg.wd``, which mathbg ships
(``data/gnubg/README.md``).

References
----------
GNU Backgammon 1.07.001: ``lib/neuralnet.c`` (``NeuralNetLoadBinary``, ``NeuralNetLoad``),
``eval.c`` (``EvalInitialise``).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from mathbg.errors import DatabaseCorruptError

__all__ = [
    "BINARY_MAGIC",
    "Network",
    "Networks",
    "read_networks",
    "shipped_networks",
]

#: The first float of gnubg's binary weights file, then its version.
BINARY_MAGIC = 472.3782
_VERSION = 1.0
#: The networks of a weights file, in its order, and their input counts.
_ORDER = (("contact", 250), ("race", 214), ("crashed", 250), ("prune_contact", 200),
          ("prune_crashed", 200), ("prune_race", 200))  # fmt: skip
F32 = NDArray[np.float32]


@dataclass(frozen=True, eq=False)
class Network:
    """One network: its weights as float32 arrays and its two sigmoid scales.

    Attributes
    ----------
    hidden_weights : float32 array (inputs, hidden)
        :math:`W_{ik}`, input by input (gnubg's order).
    output_weights : float32 array (outputs, hidden)
        :math:`V_{ok}`.
    hidden_threshold : float32 array (hidden,)
        :math:`t_k`.
    output_threshold : float32 array (outputs,)
        :math:`u_o`.
    beta_hidden, beta_output : float
        :math:`\\beta_h`, :math:`\\beta_o` (float32 values).
    """

    hidden_weights: F32
    output_weights: F32
    hidden_threshold: F32
    output_threshold: F32
    beta_hidden: float
    beta_output: float

    @property
    def inputs(self) -> int:
        """Number of inputs."""
        return int(self.hidden_weights.shape[0])

    @property
    def hidden(self) -> int:
        """Number of hidden units."""
        return int(self.hidden_weights.shape[1])


@dataclass(frozen=True, eq=False)
class Networks:
    """The six networks of a gnubg weights file and where they were read from."""

    contact: Network
    race: Network
    crashed: Network
    prune_contact: Network
    prune_crashed: Network
    prune_race: Network
    source: str


def _network(counts: tuple[int, int, int], betas: tuple[float, float],
             values: NDArray[np.float32], what: str) -> Network:  # fmt: skip
    n_in, n_hidden, n_out = counts
    sizes = (n_in * n_hidden, n_out * n_hidden, n_hidden, n_out)
    if values.size != sum(sizes):
        raise DatabaseCorruptError(f"{what}: a network of {counts} needs {sum(sizes)} weights, "
                                   f"the file holds {values.size}")  # fmt: skip
    parts = np.split(values, np.cumsum(sizes)[:-1])
    return Network(
        hidden_weights=np.ascontiguousarray(parts[0].reshape(n_in, n_hidden)),
        output_weights=np.ascontiguousarray(parts[1].reshape(n_out, n_hidden)),
        hidden_threshold=parts[2].copy(),
        output_threshold=parts[3].copy(),
        beta_hidden=float(np.float32(betas[0])),
        beta_output=float(np.float32(betas[1])),
    )


def _check_counts(counts: tuple[int, int, int], betas: tuple[float, float], name: str,
                  n_in: int, what: str) -> None:  # fmt: skip
    if counts[0] != n_in or counts[2] != 5 or not 1 <= counts[1] <= 4096 or min(betas) <= 0:
        raise DatabaseCorruptError(
            f"{what}: the {name} network should have {n_in} inputs and 5 outputs, the file "
            f"says {counts[0]} inputs, {counts[1]} hidden, {counts[2]} outputs"
        )


def _read_binary(data: bytes, what: str) -> list[Network]:
    magic, version = struct.unpack_from("<ff", data, 0)
    if abs(magic - BINARY_MAGIC) > 1e-3 or version != _VERSION:
        raise DatabaseCorruptError(f"{what}: not a gnubg binary weights file (magic {magic:g}, "
                                   f"version {version:g})")  # fmt: skip
    nets = []
    offset = 8
    for name, n_in in _ORDER:
        if offset + 24 > len(data):
            raise DatabaseCorruptError(f"{what}: ends before the {name} network")
        counts = struct.unpack_from("<3i", data, offset)
        betas = struct.unpack_from("<ff", data, offset + 16)
        _check_counts(counts, betas, name, n_in, what)
        n = counts[0] * counts[1] + counts[2] * counts[1] + counts[1] + counts[2]
        start = offset + 24
        if start + 4 * n > len(data):
            raise DatabaseCorruptError(f"{what}: the {name} network is cut short")
        values = np.frombuffer(data, dtype="<f4", count=n, offset=start).astype(np.float32)
        nets.append(_network(counts, betas, values, what))
        offset = start + 4 * n
    if offset != len(data):
        raise DatabaseCorruptError(f"{what}: {len(data) - offset} bytes after the six networks")
    return nets


def _read_text(text: str, what: str) -> list[Network]:
    lines = text.split("\n", 1)
    if not lines[0].startswith("GNU Backgammon ") or len(lines) < 2:
        raise DatabaseCorruptError(f"{what}: not a gnubg weights file (no 'GNU Backgammon' line)")
    tokens = lines[1].split()
    nets = []
    pos = 0
    for name, n_in in _ORDER:
        if pos < len(tokens) and not tokens[pos][0].isdigit():
            pos += 1  # gnubg-nn's files name each network
        try:
            counts = (int(tokens[pos]), int(tokens[pos + 1]), int(tokens[pos + 2]))
            betas = (float(tokens[pos + 4]), float(tokens[pos + 5]))
        except (IndexError, ValueError):
            raise DatabaseCorruptError(f"{what}: unreadable header of the {name} network") from None
        _check_counts(counts, betas, name, n_in, what)
        pos += 6
        n = counts[0] * counts[1] + counts[2] * counts[1] + counts[1] + counts[2]
        try:
            values = np.array(tokens[pos : pos + n], dtype=np.float32)
        except ValueError:
            raise DatabaseCorruptError(f"{what}: a weight of the {name} network is not a "
                                       "number") from None  # fmt: skip
        nets.append(_network(counts, betas, values, what))
        pos += n
    return nets


def read_networks(path: str | os.PathLike[str]) -> Networks:
    """Read a gnubg weights file, binary (``gnubg.wd``) or text (``gnubg.weights``).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    Networks
        Its six networks.

    Raises
    ------
    mathbg.errors.DatabaseCorruptError
        For a file that is not a gnubg weights file or is cut short.

    Examples
    --------
    >>> nets = shipped_networks()
    >>> nets.contact.inputs, nets.contact.hidden, nets.race.inputs
    (250, 128, 214)
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DatabaseCorruptError(f"{p}: cannot read the weights file ({exc.strerror})") from None
    what = str(p)
    if data[:15] == b"GNU Backgammon ":
        nets = _read_text(data.decode("ascii", errors="replace"), what)
    else:
        nets = _read_binary(data, what)
    contact, race, crashed, prune_contact, prune_crashed, prune_race = nets
    return Networks(contact, race, crashed, prune_contact, prune_crashed, prune_race,
                    source=what)  # fmt: skip


@lru_cache(maxsize=1)
def shipped_networks() -> Networks:
    """gnubg 1.07's networks, from the ``gnubg.wd`` mathbg ships (read once a process)."""
    from mathbg._paths import published_dir

    with_path = published_dir("gnubg") / "gnubg.wd"
    nets = read_networks(str(with_path))
    return Networks(nets.contact, nets.race, nets.crashed, nets.prune_contact,
                    nets.prune_crashed, nets.prune_race,
                    source="gnubg 1.07.001 gnubg.wd")  # fmt: skip
