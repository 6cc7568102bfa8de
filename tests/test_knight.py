"""The Knight (../shared/rigs/Knight.glb, a KayKit rig we did not author) as a second playable character:
its character file and warp assets are the tools' output, its planted feet stand still at the file's
speeds (measured on an untouched Actor's joints), and it crosses the default course as far as its
clips allow, refusing the rest with a reason. Skipped when the rig is not beside the project."""
import json
import shutil

import numpy as np
import pytest

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.character_file import Character
from motionwarp_demo.level.scene import Scene
from motionwarp import WarpAsset
from motionwarp.tools.character_writer import character_data
from motionwarp.tools.inspector import Model

from .conftest import ROOT, SAMPLES, run_for
from .pose_oracle import KNIGHT, untouched_actor

pytestmark = pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")

SHIPPED = json.loads((ROOT / "characters" / "knight.json").read_text())
ASSETS = sorted((ROOT / "assets" / "knight").glob("*.warp.json"))
#: The issue's bar for planted feet at the written speeds (m/s).
SLIDE = 0.05


@pytest.fixture(scope="module")
def knight():
    return Model(str(KNIGHT))


def test_the_shipped_character_file_is_what_inspect_writes(knight):
    """Everything but the model path (relative to where the file is) and the warp assets (`author
    --character` lists them) comes from `inspect --write-character`."""
    written, _, _ = character_data(knight, ROOT / "characters" / "knight.json")
    for key in ("model", "warp_assets"):
        written.pop(key)
    assert {k: v for k, v in SHIPPED.items() if k not in ("model", "warp_assets")} == written
    assert SHIPPED["model"] == "../../shared/rigs/Knight.glb" and SHIPPED["turn"] == 180.0
    assert SHIPPED["warp_assets"] == ["knight/jump_over", "knight/jump_onto", "knight/pick_up", "knight/interact",
                                      "knight/sit_chair"]


def planted_slide(actor, clip, speed, joint, first, last):
    """How fast `joint` slides over the ground from frame `first` to `last` of `clip` played at `speed`
    (m/s): its positions on an untouched Actor, turned 180 degrees (the file's turn) and carried
    forward (+Y) at `speed`; one frame: its speed there (central difference)."""
    fps = actor.getAnimControl(clip).getFrameRate()
    node = actor.exposeJoint(None, "modelRoot", joint)
    if first == last:
        first, last = first - 1, last + 1
    ends = []
    for frame in (first, last):
        actor.pose(clip, frame)
        actor.update(force=True)
        pos = node.getPos(actor)
        ends.append(np.array([-pos.x, -pos.y + speed * frame / fps]))
    return float(np.linalg.norm(ends[1] - ends[0]) / ((last - first) / fps))


@pytest.mark.parametrize("role", ["walk", "run"])
def test_planted_feet_stand_still_at_the_written_speeds(knight, role):
    """The walk's contact windows (the detector's); the run's toes touch down for a frame or so, so
    there the frames within 1 cm of their lowest. Every window slides less than 5 cm/s."""
    clip, speed = SHIPPED["clips"][role], SHIPPED["speeds"][role]
    actor = untouched_actor(KNIGHT)
    try:
        windows = [(p.limb.points[-1], p.first, p.last) for p in knight.facts(clip).contacts if p.limb.is_foot]
        if role == "run":
            assert not windows   # no stance of SHORTEST: measured at the lowest frames instead
            for side in "lr":
                z = knight.poses(clip).positions[f"toes.{side}"][:, 2]
                low = np.nonzero(z <= z.min() + 0.01)[0]
                windows.append((f"toes.{side}", int(low[0]), int(low[-1])))
        slides = [planted_slide(actor, clip, speed, *window) for window in windows]
        print(f"{clip} at {speed} m/s: planted slide {', '.join(f'{s * 100:.1f}' for s in slides)} cm/s")
        assert len(slides) >= 2 and max(slides) < SLIDE, slides
    finally:
        actor.cleanup()


def knight_assets(folder):
    """The shipped Knight assets copied to `folder/knight`, their model the rig's absolute path (the
    shipped relative one resolves from a clone beside ../shared, not from every checkout)."""
    (folder / "knight").mkdir(parents=True)
    for path in ASSETS:
        data = json.loads(path.read_text())
        data["model"] = str(KNIGHT)
        (folder / "knight" / path.name).write_text(json.dumps(data))
    return folder


def test_the_assets_are_what_the_tool_proposed(tmp_path):
    folder = knight_assets(tmp_path)
    kinds = {}
    for path in sorted((folder / "knight").glob("*.warp.json")):
        asset = WarpAsset.load(path)
        kinds[path.name] = (asset.clip, asset.traversal.kind, [p.name for p in asset.phases])
    assert kinds == {"jump_onto.warp.json": ("Jump_Full_Long", "jump_onto", ["take_off", "landing"]),
                     "jump_over.warp.json": ("Jump_Full_Long", "jump_over", ["close_edge", "far_edge", "landing"]),
                     "pick_up.warp.json": ("PickUp", "pick_up", ["grab"]),
                     "interact.warp.json": ("Interact", "use", ["hand"]),
                     "sit_chair.warp.json": ("Sit_Chair_Down", "sit", ["seat"])}


def test_the_knight_crosses_the_course_as_far_as_its_clips_allow(base, tmp_path):
    """Jumps over the crate, the log, the low crate (too shallow to land on) and the wedge crate (a
    jump over is asked first, and one obstacle's answers rank in the order given: design 7), onto
    the tall crate (too deep to jump over; it drops off it), and stops at the chamfered ledge, 1.6 m
    high, with both jumps' reasons; every phase ends within 1 mm of its target."""
    character = tmp_path / "knight.json"
    character.write_text(json.dumps(dict(SHIPPED, model=str(KNIGHT))))
    folder = knight_assets(tmp_path / "assets")
    shutil.copy(SAMPLES / "scenes" / "course.json", tmp_path / "course.json")
    (tmp_path / "meshes").symlink_to(SAMPLES / "scenes" / "meshes")
    demo = Demo(base, Scene.load(tmp_path / "course.json"), autopilot=True, asset_dir=folder,
                character=Character.load(character))
    started = []
    demo.on_start = lambda name, found, warp: started.append((name, found.kind, warp))
    try:
        elapsed = 0.0
        while not demo.done and elapsed < 70.0:
            run_for(base, 1.0, 1 / 30)
            elapsed += 1.0
        taken = [(name, kind) for name, kind, _ in started]
        assert taken == [("crate", "jump_over"), ("log", "jump_over"), ("low crate", "jump_over"),
                         ("wedge crate", "jump_over"), ("tall crate", "jump_onto")]
        errors = [float(np.linalg.norm(r.arrived - r.target)) for _, _, warp in started for r in warp.results]
        print(f"Knight phase end errors: max {max(errors) * 1000:.4f} mm over {len(errors)} phases")
        assert len(errors) == 4 * 3 + 1 * 2 and max(errors) < 1e-3
        assert demo.autopilot.stopped == {
            "obstacle": "chamfered ledge",
            "reason": "too high to jump over (1.60 m > 1.10 m) or jump onto (1.60 m > 1.50 m)"}
    finally:
        demo.destroy()
