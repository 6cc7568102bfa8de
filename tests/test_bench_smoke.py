"""The benchmark command runs and prints every row of its tables with finite positive numbers.

Not a timing test: it only checks that `python -m tests.bench --quick` still measures what the
README's Performance table shows (so the core rebuild can be measured with it). Slow: it runs with
MOTIONWARP_SLOW=1 (`.ci/run` does).
"""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"^\d+(\.\d+)?$")

PER_FRAME = ["Panda3D `actor.update()`", "root motion only", "whole warper task", "warper task minus Panda3D's update",
             "`TraversalProvider.find`", "provider query on open ground", "contact IK task"]
SCALING_QUICK = ["1", "10", "batched, 1", "batched, 10"]
GROWTH_QUICK = ["1", "10"]
#: Issue 29's table, row for row, as `python -m tests.bench` begins each line.
ISSUE29_ROWS = ["contact IK, two", "contact IK, hands", "contact IK, feet", "warper, one task per character",
                "warper, in a `WarpBatch`", "provider query", "the demo", "`MarkerProvider"]
SETUP = ["`MotionWarper()`, first for the model", "`MotionWarper()`, later, shared model",
         "`MotionWarper.play()`, a warper's first", "`MotionWarper.play()`, later ones",
         "`MotionWarper.play()`, the same again at once",
         "`load_actor()` cold", "`load_actor()` warm"]


def numbers(cells):
    """Every number in the cells (a spread "a-b" gives two); a cell that is neither fails."""
    out = []
    for cell in cells:
        for part in cell.split("-"):
            assert NUMBER.match(part), f"not a positive number: {cell!r}"
            out.append(float(part))
    return out


@pytest.mark.slow
def test_quick_benchmark_prints_every_row_with_positive_numbers():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "tests.bench", "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("machine: ") and "Panda3D 1." in line and "cores" in line for line in lines)
    assert any(line.startswith("load average") for line in lines)
    rows, growth = {}, {}
    for line in lines:
        if line.startswith("| ") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            (growth if len(cells) == 4 and cells[0].isdigit() else rows)[cells[0]] = cells[1:]
    for expected, cell_count, units in [(PER_FRAME, 4, False), (SCALING_QUICK, 7, False), (SETUP, 4, True)]:
        for label in expected:
            found = [cells for name, cells in rows.items() if name == label or name.startswith(label + " ")
                     or name.startswith(label + ",")]
            assert len(found) == 1, f"no single row {label!r} in:\n{done.stdout}"
            cells = found[0]
            assert len(cells) == cell_count, cells
            values = numbers(cells[:-1] if units else cells[:5] if expected is SCALING_QUICK else cells)
            assert all(value > 0 for value in values), (label, cells)
            if units:
                assert cells[-1] in ("ms", "us"), cells
    assert sorted(growth) == GROWTH_QUICK and all(len(cells) == 3 and all(v > 0 for v in numbers(cells))
                                                  for cells in growth.values()), growth
    goals = [line for line in lines[lines.index("Goals (issue 20; ratios are to Panda3D's `actor.update()` of the same "
                                                "actors and frames):"):] if line.startswith("- ")]
    assert len(goals) >= 4 and all(re.search(r": (met|NOT met)", line) or "not run" in line for line in goals), goals
    table = [line for line in lines[lines.index("Issue 29's table (ratios are to Panda3D's `actor.update()` of the same "
                                                "actors and frames):"):] if line.startswith("- ")]
    assert [re.match(r"- (contact IK, \w+|warper, [^,]+|provider query|the demo|`MarkerProvider)", line).group(1)
            for line in table] == ISSUE29_ROWS, table
    assert all(re.search(r": (met|NOT met)$", line) for line in table), table
    budget = re.search(r"^10 warping characters within 12 ms of CPU per frame: (yes|no) \((\d+\.\d+) ms: "
                       r"Panda3D's update of those actors (\d+\.\d+) ms, motionwarp's share (-?\d+\.\d+) ms\)$",
                       done.stdout, re.M)
    assert budget, done.stdout
    total, panda, share = (float(budget.group(i)) for i in (2, 3, 4))
    assert share == pytest.approx(total - panda, abs=0.011)


@pytest.mark.slow
def test_the_boxes_benchmark_runs_and_reports_the_frame_goal():
    """tests/bench/bench_boxes.py on a small scene: each configuration ran (its own process) and walked."""
    done = subprocess.run([sys.executable, "-m", "tests.bench.bench_boxes", "--boxes", "40", "--frames", "20"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    frames = re.findall(r"frame (\d+\.\d+) ms median", done.stdout)
    walked = [float(m) for m in re.findall(r"the autopilot walked (\d+\.\d+) m", done.stdout)]
    assert len(frames) == 3 and all(float(f) > 0 for f in frames) and all(m > 0 for m in walked), done.stdout
    assert re.search(r"goal: under 2 ms a frame with 40 boxes: (met|NOT met)", done.stdout), done.stdout


@pytest.mark.slow
def test_the_providers_benchmark_prints_the_walking_up_and_marker_goals():
    """tests/bench/bench_providers.py on a small level: issue 29's two provider rows, each met or NOT met."""
    done = subprocess.run([sys.executable, "tests/bench/bench_providers.py", "--obstacles", "30", "--queries", "80"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"^goal \(issue 29\): TraversalProvider walking up, per frame, at most 1x update: \d+\.\d+x .*: "
                     r"(met|NOT met)$", done.stdout, re.M), done.stdout
    assert re.search(r"^goal \(issue 29\): MarkerProvider.find\(\) among 10,000 markers under 1000 us: .*: (met|NOT met)$",
                     done.stdout, re.M), done.stdout
