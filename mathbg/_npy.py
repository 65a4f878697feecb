"""Reading ``.npy`` data without the code path that compiles.

``numpy.lib.format.read_array`` (and ``np.load``) parse the ``.npy`` header, a Python dict
literal, with :func:`ast.literal_eval`, which compiles it. On CPython 3.11.x (seen on
3.11.7) compiling in several threads at once can fail with ``SystemError: AST constructor
recursion depth mismatch`` (CPython gh-106905), so a threaded Dask worker reading blocks
crashes at random. This module parses the header itself (a strict reader of exactly what
numpy writes: ``descr``, ``fortran_order``, ``shape``) and never compiles anything, so it
is safe in any number of threads on every supported Python.

Standard library and numpy only.
"""

from __future__ import annotations

import re
import struct
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.errors import DatabaseCorruptError

__all__ = ["decode", "decode_npz", "encode", "map_npz", "memmap", "parse_header", "read_header"]

_MAGIC = b"\x93NUMPY"
_HEADER = re.compile(
    r"""\{\s*
    (?:'descr'\s*:\s*'(?P<descr>[<>|=]?[a-zA-Z]\d*)'\s*,\s*
     |'fortran_order'\s*:\s*(?P<fortran>True|False)\s*,\s*
     |'shape'\s*:\s*\((?P<shape>\s*(?:\d+\s*,\s*)*(?:\d+\s*)?)\)\s*,?\s*
    ){3}
    \}\s*$""",
    re.VERBOSE,
)


def parse_header(text: str, what: str = "array") -> tuple[np.dtype[Any], bool, tuple[int, ...]]:
    """``(dtype, fortran_order, shape)`` of a ``.npy`` header dict as numpy writes it.

    Only plain dtypes (a byte order, a kind letter and a size, e.g. ``'<f8'``) are read:
    no object, structured or sub-array dtypes. Anything else is a
    :class:`~mathbg.errors.DatabaseCorruptError`.
    """
    m = _HEADER.match(text)
    if m is None or None in (m["descr"], m["fortran"], m["shape"]):
        raise DatabaseCorruptError(f"{what}: not a .npy header mathbg reads: {text[:80]!r}")
    try:
        dtype = np.dtype(m["descr"])
    except TypeError:
        raise DatabaseCorruptError(f"{what}: unknown dtype {m['descr']!r}") from None
    if dtype.hasobject or dtype.names is not None:
        raise DatabaseCorruptError(f"{what}: dtype {m['descr']!r} is not a plain number type")
    shape = tuple(int(x) for x in m["shape"].replace(",", " ").split())
    return dtype, m["fortran"] == "True", shape


def read_header(data: bytes | memoryview, what: str = "array") -> tuple[
    np.dtype[Any], bool, tuple[int, ...], int
]:  # fmt: skip
    """``(dtype, fortran_order, shape, offset of the data)`` of ``.npy`` bytes (versions
    1.0, 2.0 and 3.0 of the format)."""
    head = bytes(data[:12])
    if len(head) < 10 or head[:6] != _MAGIC:
        raise DatabaseCorruptError(f"{what}: not a .npy file")
    major = head[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", head[8:10])
        start = 10
    elif major in (2, 3):
        if len(head) < 12:
            raise DatabaseCorruptError(f"{what}: truncated .npy header")
        (hlen,) = struct.unpack("<I", head[8:12])
        start = 12
    else:
        raise DatabaseCorruptError(f"{what}: .npy format version {major} is not read")
    raw = bytes(data[start : start + hlen])
    if len(raw) != hlen:
        raise DatabaseCorruptError(f"{what}: truncated .npy header")
    try:
        text = raw.decode("latin-1" if major < 3 else "utf-8")
    except UnicodeDecodeError:
        raise DatabaseCorruptError(f"{what}: unreadable .npy header") from None
    dtype, fortran, shape = parse_header(text, what)
    return dtype, fortran, shape, start + hlen


def decode(data: bytes | memoryview, what: str = "array") -> NDArray[Any]:
    """The array held by ``.npy`` bytes (a read-only view of ``data``, no copy).

    The data must be exactly as long as the header says (a truncated or padded file is a
    :class:`~mathbg.errors.DatabaseCorruptError`).
    """
    dtype, fortran, shape, offset = read_header(data, what)
    count = 1
    for n in shape:
        count *= n
    if len(data) - offset != count * dtype.itemsize:
        raise DatabaseCorruptError(
            f"{what}: {len(data) - offset} data bytes, the header says {count * dtype.itemsize}"
        )
    flat = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
    return flat.reshape(shape, order="F" if fortran else "C")


def decode_npz(data: bytes, what: str = "archive") -> dict[str, NDArray[Any]]:
    """The arrays of ``.npz`` bytes (as ``numpy.savez`` writes them), by name.

    A damaged archive, a member that is not ``.npy`` or a header :func:`decode` refuses
    is a :class:`~mathbg.errors.DatabaseCorruptError`.
    """
    import io
    import zipfile

    arrays: dict[str, NDArray[Any]] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                if not info.filename.endswith(".npy"):
                    raise DatabaseCorruptError(f"{what}: member {info.filename!r} is not .npy")
                name = info.filename[: -len(".npy")]
                arrays[name] = decode(z.read(info), f"{what}: {name}")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        raise DatabaseCorruptError(f"{what}: not a readable .npz archive ({exc})") from None
    return arrays


def map_npz(path: Any, what: str | None = None) -> dict[str, NDArray[Any]]:
    """The arrays of an uncompressed ``.npz`` file (as ``numpy.savez`` writes it), by
    name, as read-only views of one memory map: no copy and no CRC-32 (:func:`decode_npz`
    reads and checks every byte twice), for a file whose caller checks a digest of its own
    over the arrays.

    A compressed member, a member that is not ``.npy``, a damaged archive or header is a
    :class:`~mathbg.errors.DatabaseCorruptError`.
    """
    import mmap
    import zipfile

    label = what or str(path)
    arrays: dict[str, NDArray[Any]] = {}
    with open(path, "rb") as fh:
        try:
            members = zipfile.ZipFile(fh).infolist()
            view = memoryview(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
            raise DatabaseCorruptError(f"{label}: not a readable .npz archive ({exc})") from None
    for info in members:
        if not info.filename.endswith(".npy"):
            raise DatabaseCorruptError(f"{label}: member {info.filename!r} is not .npy")
        name = info.filename[: -len(".npy")]
        if info.compress_type != zipfile.ZIP_STORED:
            raise DatabaseCorruptError(f"{label}: member {name!r} is compressed")
        local = bytes(view[info.header_offset : info.header_offset + 30])
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise DatabaseCorruptError(f"{label}: member {name!r} has no local header")
        names, extra = struct.unpack("<HH", local[26:30])
        start = info.header_offset + 30 + names + extra
        if start + info.compress_size > len(view):
            raise DatabaseCorruptError(f"{label}: member {name!r} is truncated")
        arrays[name] = decode(view[start : start + info.compress_size], f"{label}: {name}")
    return arrays


def memmap(path: Any, what: str | None = None) -> NDArray[Any]:
    """A read-only memory map of the ``.npy`` file ``path`` (as ``np.load(path,
    mmap_mode="r")``, without compiling the header).

    A file whose size is not what its header says is a
    :class:`~mathbg.errors.DatabaseCorruptError`; a missing file raises
    :class:`FileNotFoundError`.
    """
    import os

    label = what or str(path)
    with open(path, "rb") as fh:
        head = fh.read(12)
        if len(head) >= 12 and head[6] in (2, 3):
            (hlen,) = struct.unpack("<I", head[8:12])
            head += fh.read(hlen)
        elif len(head) >= 10:
            (hlen,) = struct.unpack("<H", head[8:10])
            head += fh.read(hlen)
        size = os.fstat(fh.fileno()).st_size
    dtype, fortran, shape, offset = read_header(head, label)
    count = 1
    for n in shape:
        count *= n
    if size - offset != count * dtype.itemsize:
        raise DatabaseCorruptError(
            f"{label}: {size - offset} data bytes, the header says {count * dtype.itemsize}"
        )
    if count == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(
        path, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C"
    )


def encode(array: NDArray[Any]) -> bytes:
    """``.npy`` bytes of ``array`` (C order), as ``numpy.save`` writes them (version 1.0;
    writing does not compile anything)."""
    import io

    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()
