"""`python -m motionwarp inspect`: a newcomer's first look at their own character."""
import json
import math
import os
import subprocess
import sys

import pytest

from motionwarp import WarpAsset

from . import rig_samples
from .conftest import ROOT, in_process


def run_tool(command, *args):
    """`python -m motionwarp COMMAND ARGS...` from the project's root, as a user runs it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "motionwarp", command, *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


def run_inspect(*args):
    return run_tool("inspect", *args)


def tool_in_process(capsys, command, *args):
    """(exit status, stderr) of `python -m motionwarp COMMAND ARGS` run in this process: the same `main`,
    without starting Python and loading the model anew per case (each command also runs as a subprocess)."""
    from motionwarp.__main__ import main
    return in_process(main, [command, *map(str, args)], capsys)


@pytest.fixture(scope="module")
def fox(tmp_path_factory):
    return rig_samples.write_rig(tmp_path_factory.mktemp("rigs") / "fox_root.glb", "fox_root")


def test_lists_clips_joints_and_recommends_the_projected_hips(fox):
    result = run_inspect(fox)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for clip, (frames, *_rest) in rig_samples.CLIPS.items():  # closed cycles, one key per frame plus the last
        line = next(line for line in out.splitlines() if line.startswith(f"  {clip} "))
        assert line.startswith(f"  {clip:32s} {frames / rig_samples.FPS:7.3f} s {frames + 1:5d} frames")
        assert " loop " in line
    assert "joints:\n  root\n    hips\n      leg\n        foot\n      head\n" in out
    # The rig's root joint never moves; its hips walk furthest in stride32 (1.5 m forward).
    assert "recommendation: no root bone carries motion; `hips` in projected mode carries 1.50 m in stride32" in out
    forward = rig_samples.CLIPS["walk"][1]
    assert f"hips projected {forward:7.3f} m" in out.split("  walk\n", 1)[1]


def test_writes_a_starting_warp_asset_that_loads(fox, tmp_path):
    out = tmp_path / "assets" / "stride.warp.json"
    out.parent.mkdir()
    result = run_inspect(fox, "--write-asset", "stride32", out)
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert data["model"] == os.path.relpath(fox, out.parent).replace(os.sep, "/")
    assert (data["root_joint"], data["root_mode"]) == ("hips", "projected")
    asset = WarpAsset.load(out)
    assert len(asset.phases) == 1 and asset.phases[0].start == 0.0
    assert asset.phases[0].end == pytest.approx(32 / rig_samples.FPS, abs=1e-6)
    assert math.hypot(*asset.track.position(32)[:2]) == pytest.approx(1.5, abs=1e-4)


@pytest.mark.parametrize("args,message", [
    (("nothing.glb",), "nothing.glb: file not found"),
    (("FOX", "--write-asset", "sprint", "OUT"), "clip 'sprint' not found; the model has: in_place, stride32, turn, walk"),
    (("FOX", "--write-asset", "walk", "FOX/walk.warp.json"), "its folder cannot be made"),
    (("FOX", "--root-mode", "sideways"), "argument --root-mode: invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(fox, tmp_path, capsys, args, message):
    args = [a.replace("FOX", str(fox)) if a.startswith("FOX") else tmp_path / "w.warp.json" if a == "OUT" else a
            for a in args]
    status, stderr = tool_in_process(capsys, "inspect", *args)
    assert status == 2
    assert stderr.count("\n") == 1 and message in stderr, stderr
    assert not (tmp_path / "w.warp.json").exists()


def test_inspecting_after_a_driver_stripped_the_shared_clips_reads_them_as_authored(base, fox):
    """A game (or the author tool) may inspect a model whose Actors already play: their driver took
    the root motion off the bundles Actors of one file share; inspect must still see the clip's travel."""
    from motionwarp import RootMotionDriver, load_actor
    from motionwarp.tools.inspector import Model, report
    actor = load_actor(fox)
    driver = RootMotionDriver(actor, "hips", "projected", taskmgr=base.taskMgr)
    try:
        out = report(Model(fox))
        assert "`hips` in projected mode carries 1.50 m in stride32" in out
        assert f"hips projected {rig_samples.CLIPS['walk'][1]:7.3f} m" in out.split("  walk\n", 1)[1]
    finally:
        driver.destroy()
        actor.cleanup()
