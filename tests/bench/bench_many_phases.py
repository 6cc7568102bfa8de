"""Benchmark: loading a warp asset with many phases takes time linear in the phase count.

    python tests/bench/bench_many_phases.py [--counts 10000 20000 40000]

Each asset cuts the vault clip into back-to-back phases; the model is converted once before
timing. Prints seconds per load and microseconds per phase (flat when validation is linear).
"""
import argparse
import json
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from motionwarp import samples  # noqa: E402

SAMPLES = samples.folder()

from motionwarp import WarpAsset  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    args = parser.parse_args()
    data = json.loads((SAMPLES / "assets" / "vault.warp.json").read_text())
    data["model"] = str(SAMPLES / "assets" / "mannequin.glb")
    duration = WarpAsset.load(SAMPLES / "assets" / "vault.warp.json").duration
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "many.warp.json"
        for count in args.counts:
            data["phases"] = [{"name": f"p{i}", "start": duration * i / count, "end": duration * (i + 1) / count}
                              for i in range(count)]
            path.write_text(json.dumps(data))
            start = time.perf_counter()
            WarpAsset.load(path)
            seconds = time.perf_counter() - start
            print(f"{count:6d} phases: {seconds:6.2f} s, {seconds / count * 1e6:5.1f} us per phase")


if __name__ == "__main__":
    main()
