"""Benchmark: building Zadeh and MEC tables in mathbg vs gnubg loading the same tables.

Run: ``python benchmarks/bench_met.py [--repeat N]``.

mathbg: best time of ``zadeh(n)`` / ``mec(n)`` for n = 25 and 64 after a warm-up call, twice:
first as a process that has not loaded numba runs them (the recurrences in plain Python,
what ``mathbg met`` does), then with numba loaded (the compiled kernels; the warm-up
compiles or loads them from the cache). Targets from issue 3: a 25-point table in under
20 ms, a 64-point one in under 200 ms.

gnubg 1.07: best time of ``set matchequitytable FILE`` inside gnubg's embedded Python, FILE
being the same parametric table written by mathbg (``<length>`` n; gnubg always computes the
model to 64 points, then extends with Montgomery's model beyond n and precomputes gammon
prices). Loading the explicit Kazaross-XG2 table is timed too: its time is gnubg's fixed
cost (XML parsing, gammon prices), so "model only" = parametric - explicit.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _common import best_time, gnubg_peer

from mathbg.met import mec, zadeh
from mathbg.met.formats import format_gnubg_xml

CASES = {
    "zadeh-25": lambda: zadeh(25),
    "zadeh-64": lambda: zadeh(64),
    "mec-25": lambda: mec(25, gammon_rate=0.26),
    "mec-64": lambda: mec(64, gammon_rate=0.26),
}


def gnubg_times(files: dict[str, Path], repeat: int) -> dict[str, float] | None:
    peer = gnubg_peer()
    if peer is None:
        return None
    script = (
        "import gnubg, json, time\n"
        f"files = {json.dumps({k: str(v) for k, v in files.items()})}\n"
        "out = {}\n"
        "for name, path in files.items():\n"
        "    gnubg.command('set matchequitytable ' + path)\n"
        "    best = 1e9\n"
        f"    for _ in range({repeat}):\n"
        "        t = time.perf_counter()\n"
        "        gnubg.command('set matchequitytable ' + path)\n"
        "        best = min(best, time.perf_counter() - t)\n"
        "    out[name] = best\n"
        "print('TIMES ' + json.dumps(out))\n"
    )
    text = peer.run_python(script, timeout=600)
    line = next(x for x in text.splitlines() if x.startswith("TIMES "))
    return json.loads(line[len("TIMES ") :])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    assert "numba" not in sys.modules
    plain = {name: best_time(make, args.repeat) for name, make in CASES.items()}
    import numba  # noqa: F401  (from now on the models run the compiled kernels)

    ours = {name: best_time(make, args.repeat) for name, make in CASES.items()}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, make in CASES.items():
            path = Path(tmp) / f"{name}.xml"
            path.write_text(format_gnubg_xml(make(), parametric=True))
            files[name] = path
        files["explicit-kxg2"] = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")
        theirs = gnubg_times(files, max(3, args.repeat // 4))

    print(
        f"{'table':<10} {'Python ms':>10} {'numba ms':>10} {'target ms':>10} {'gnubg load ms':>14} "
        f"{'gnubg model ms':>15} {'load ratio':>11} {'model ratio':>12}"
    )
    base = theirs.get("explicit-kxg2", 0.0) if theirs else 0.0
    for name, seconds in ours.items():
        target = 20.0 if name.endswith("-25") else 200.0
        row = f"{name:<10} {1e3 * plain[name]:>10.3f} {1e3 * seconds:>10.3f} {target:>10.0f}"
        if theirs:
            load = theirs[name]
            model = max(load - base, 1e-9)
            row += f" {1e3 * load:>14.3f} {1e3 * model:>15.3f} {load / seconds:>10.1f}x"
            row += f" {model / seconds:>11.1f}x"
        else:
            row += f" {'(no gnubg)':>14}"
        print(row)
    if theirs:
        print(f"gnubg loading the explicit Kazaross-XG2 table (fixed cost): {1e3 * base:.3f} ms")
        print("load ratio = gnubg load time / mathbg build time (numba); model ratio = (gnubg")
        print("load - fixed cost) / mathbg build time, a noisy estimate (> 1: mathbg faster).")
        print("Python ms: the same tables in a process without numba (what `mathbg met` pays;")
        print("loading numba costs about 0.4 s more than that).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
