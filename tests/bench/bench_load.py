"""Benchmark: cold and warm `load_actor` times through Panda3D's model cache.

    python tests/bench/bench_load.py [MODEL.glb ...]

For each model (default: the mannequin, and the Knight when ../shared/rigs/Knight.glb is
there), two fresh Python processes share an empty `model-cache-dir`: the first converts the
file and stores the fixed bake (cold), the second loads it from the cache (warm), as a
second start of the demo does.
"""
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from motionwarp import samples  # noqa: E402

SAMPLES = samples.folder()

from tests.pose_oracle import KNIGHT  # noqa: E402

ONE_LOAD = """
import sys, time
from panda3d.core import loadPrcFileData
loadPrcFileData("bench", "model-cache-dir " + sys.argv[2])
from motionwarp import load_actor
start = time.perf_counter()
load_actor(sys.argv[1])
print(time.perf_counter() - start)
"""


def timed_load(model, cache_dir):
    result = subprocess.run([sys.executable, "-c", ONE_LOAD, str(model), cache_dir], capture_output=True,
                            text=True, check=True, cwd=ROOT)
    return float(result.stdout.split()[-1])


def main():
    models = [pathlib.Path(p) for p in sys.argv[1:]] or [SAMPLES / "assets" / "mannequin.glb"] + ([KNIGHT] if KNIGHT else [])
    for model in models:
        with tempfile.TemporaryDirectory() as cache_dir:
            cold = timed_load(model, cache_dir)
            warm = min(timed_load(model, cache_dir) for _ in range(3))
        print(f"{model.name:20s} cold {cold:6.3f} s   warm {warm:6.3f} s   ({cold / warm:.0f}x)")


if __name__ == "__main__":
    main()
