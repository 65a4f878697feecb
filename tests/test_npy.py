"""The ``.npy`` reader that never compiles (CPython gh-106905: ``ast.literal_eval`` in
several threads at once can raise ``SystemError`` on 3.11.x), hammered from many threads."""

from __future__ import annotations

import ast
import builtins
import io
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mathbg import _npy
from mathbg.errors import DatabaseCorruptError


def _numpy_bytes(arr: np.ndarray, version: tuple[int, int] | None = None) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version, allow_pickle=False)
    return buf.getvalue()


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from([np.uint16, np.float32, np.float64, np.int64, np.uint8, ">f8"]),
        shape=hnp.array_shapes(min_dims=0, max_dims=4, max_side=5),
    ),
    st.sampled_from([None, (1, 0), (2, 0), (3, 0)]),
    st.booleans(),
)
def test_decode_reads_what_numpy_writes(arr, version, fortran):
    arr = np.asfortranarray(arr) if fortran else arr
    data = _numpy_bytes(arr, version)
    got = _npy.decode(data)
    want = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_decode_never_compiles(monkeypatch):
    data = _numpy_bytes(np.arange(12, dtype="<u2").reshape(3, 4))

    def refuse(*args, **kwargs):
        raise AssertionError("the reader compiled something")

    monkeypatch.setattr(ast, "literal_eval", refuse)
    monkeypatch.setattr(builtins, "compile", refuse)
    np.testing.assert_array_equal(_npy.decode(data), np.arange(12).reshape(3, 4))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d[:-1],  # truncated data
        lambda d: d + b"\0",  # padded data
        lambda d: d[:8],  # truncated header
        lambda d: b"\x93NUMPX" + d[6:],  # bad magic
        lambda d: d.replace(b"'<f8'", b"'|O8'"),  # object dtype
        lambda d: d.replace(b"'shape'", b"'shapE'"),  # unknown key
        lambda d: d.replace(b"(3, 4)", b"(4, 4)"),  # shape and size disagree
        lambda d: d.replace(b"False", b"__import__('os').system('x')"[:5]),
    ],
)
def test_damaged_headers_are_corrupt(mutate):
    data = _numpy_bytes(np.zeros((3, 4)))
    with pytest.raises(DatabaseCorruptError):
        _npy.decode(mutate(data))


def test_hammered_from_many_threads():
    """64 threads decode 200 arrays each while the others also parse with numpy's own
    writer: every result is right and nothing raises."""
    arrays = [np.arange(k * 7, dtype=np.float64).reshape(k, 7) for k in range(1, 9)]
    blobs = [_numpy_bytes(a) for a in arrays]
    errors: list[BaseException] = []
    start = threading.Barrier(64)

    def work(seed: int) -> None:
        try:
            start.wait()
            for i in range(200):
                k = (seed + i) % len(blobs)
                got = _npy.decode(blobs[k])
                if not np.array_equal(got, arrays[k]):
                    raise AssertionError(f"thread {seed}: wrong array {k}")
                _npy.encode(got)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors[:3]


def test_encode_round_trip():
    arr = np.arange(30, dtype=np.uint16).reshape(5, 6)
    data = _npy.encode(arr)
    assert data == _numpy_bytes(arr)
    np.testing.assert_array_equal(_npy.decode(data), arr)


def _members() -> dict[str, np.ndarray]:
    """An archive's arrays of every kind the readers meet: a dtype with its byte order,
    bytes, an empty array, Fortran order."""
    return {
        "a": np.arange(12, dtype="<u2").reshape(3, 4),
        "b": np.array(b"digest"),
        "c": np.zeros((0, 5)),
        "d": np.asfortranarray(np.eye(3)),
    }


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_decode_npz_reads_what_numpy_writes_without_compiling(monkeypatch, save):
    arrays = _members()
    buf = io.BytesIO()
    save(buf, **arrays)

    def refuse(*args, **kwargs):
        raise AssertionError("the reader compiled something")

    monkeypatch.setattr(ast, "literal_eval", refuse)
    monkeypatch.setattr(builtins, "compile", refuse)
    got = _npy.decode_npz(buf.getvalue())
    assert sorted(got) == sorted(arrays)
    for name, want in arrays.items():
        assert got[name].dtype == want.dtype and got[name].shape == want.shape
        np.testing.assert_array_equal(got[name], want)


@pytest.mark.parametrize(
    "mutate", [lambda d: d[: len(d) // 2], lambda d: b"PK" + d[2:40], lambda d: b""]
)
def test_damaged_npz_is_corrupt(mutate):
    buf = io.BytesIO()
    np.savez(buf, x=np.arange(100.0))
    with pytest.raises(DatabaseCorruptError):
        _npy.decode_npz(mutate(buf.getvalue()))


@pytest.mark.parametrize(
    "arr",
    [
        np.arange(30, dtype="<i4").reshape(5, 6),
        np.zeros((0, 3)),
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    ],
)
def test_memmap_equals_numpys_memmap_without_compiling(tmp_path, monkeypatch, arr):
    path = tmp_path / "x.npy"
    np.save(path, arr)
    want = np.load(path, mmap_mode="r")

    def refuse(*args, **kwargs):
        raise AssertionError("the reader compiled something")

    monkeypatch.setattr(ast, "literal_eval", refuse)
    monkeypatch.setattr(builtins, "compile", refuse)
    got = _npy.memmap(path)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    if got.size:
        with pytest.raises(ValueError):
            got[(0,) * got.ndim] = 1  # read-only


def test_memmap_of_a_truncated_file_is_corrupt(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.arange(100.0))
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(DatabaseCorruptError):
        _npy.memmap(path)


def test_map_npz_reads_what_numpy_writes_as_read_only_views(tmp_path, monkeypatch):
    arrays = _members()
    path = tmp_path / "x.npz"
    np.savez(path, **arrays)

    def refuse(*args, **kwargs):
        raise AssertionError("the reader compiled something")

    monkeypatch.setattr(ast, "literal_eval", refuse)
    monkeypatch.setattr(builtins, "compile", refuse)
    got = _npy.map_npz(path)
    assert sorted(got) == sorted(arrays)
    for name, want in arrays.items():
        assert got[name].dtype == want.dtype and got[name].shape == want.shape
        np.testing.assert_array_equal(got[name], want)
    with pytest.raises(ValueError):
        got["a"][0, 0] = 1  # read-only


@pytest.mark.parametrize(
    "mutate", [lambda d: d[: len(d) // 2], lambda d: b"PK" + d[2:40], lambda d: b"",
               lambda d: b"XXXX" + d[4:]],  # a member's local header
)  # fmt: skip
def test_map_npz_of_a_damaged_archive_is_corrupt(tmp_path, mutate):
    path = tmp_path / "x.npz"
    np.savez(path, x=np.arange(100.0))
    path.write_bytes(mutate(path.read_bytes()))
    with pytest.raises(DatabaseCorruptError):
        _npy.map_npz(path)


def test_map_npz_refuses_a_compressed_archive(tmp_path):
    """A compressed member cannot be mapped: refused, never decoded from its deflated
    bytes."""
    path = tmp_path / "x.npz"
    np.savez_compressed(path, x=np.arange(100.0))
    with pytest.raises(DatabaseCorruptError, match="compressed"):
        _npy.map_npz(path)
