"""Clips authored in place (their root barely moves) warp like any other (docs/design.md 4 and 7):
the providers never crash on them, the landing clears the obstacle, play rates stay 1 (the
zero-motion rule), and a character with only some kinds of assets, under any names, plays."""
import json
import shutil

import numpy as np
import pytest
from panda3d.core import Point3

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.character_file import Character, CharacterError
from motionwarp_demo.level.scene import Scene
from motionwarp import (Interaction, MotionWarper, MantleProvider, Refusal, SceneProbe, TraversalProvider,
                        UsageError, VaultProvider, WarpAsset, load_actor)
from motionwarp.base.config import ProviderSettings

from .conftest import run_for
from .obstacles import box_profile, level, prism
from .rig_samples import write_rig
from .warp_helpers import WarpRun

IN_PLACE_VAULT = {"format": "motionwarp.asset/1", "model": "rig.glb", "clip": "in_place", "root_joint": "root",
                  "traversal": {"kind": "vault", "height": [0.5, 1.5], "depth": [0.0, 1.2]},
                  # the root waits half a metre before the close edge: where the autopilot starts the clip
                  "phases": [{"name": "close_edge", "start": 0.0, "end": 0.3, "t_offset": [0, -0.5, 0]},
                             {"name": "far_edge", "start": 0.3, "end": 0.6},
                             {"name": "landing", "start": 0.6, "end": 0.9}]}
IN_PLACE_MANTLE = {"format": "motionwarp.asset/1", "model": "rig.glb", "clip": "in_place", "root_joint": "root",
                   "traversal": {"kind": "mantle", "height": [1.2, 2.0], "depth": [0.5, 50.0]},
                   "phases": [{"name": "ledge_top", "start": 0.0, "end": 0.6}]}


@pytest.fixture(scope="module")
def rig_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("in_place")
    write_rig(folder / "rig.glb", "fox_root")
    for name, data in (("hop", IN_PLACE_VAULT), ("climb", IN_PLACE_MANTLE)):
        (folder / f"{name}.warp.json").write_text(json.dumps(data))
    return folder


@pytest.fixture(scope="module")
def hop(rig_dir):
    return WarpAsset.load(rig_dir / "hop.warp.json")


@pytest.fixture(scope="module")
def climb(rig_dir):
    return WarpAsset.load(rig_dir / "climb.warp.json")


def crate_scene(depth=0.6, height=1.0, beyond=None):
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    prism(root, "crate", box_profile(depth, height), 1.2, pos=(0, 2, 0))
    if beyond is not None:   # a platform as high as the crate, `beyond` metres past its back
        prism(root, "platform", box_profile(3.0, height), 3.0, pos=(0, 2 + depth / 2 + beyond + 1.5, 0))
    return SceneProbe.from_geometry(root)


def test_an_in_place_vault_lands_clear_of_the_far_face(hop):
    """The clip travels nothing between its last two targets: it lands the capsule's radius and the
    clearance past the far edge, where the capsule fits, instead of on the top (a zero-length sweep)."""
    assert abs(hop.track.positions).max() < 1e-4   # the clip is in place
    found = VaultProvider(crate_scene(), [hop]).find_at(Point3(0, 1, 0), 0.0)
    settings = ProviderSettings.from_prc()
    assert isinstance(found, Interaction), found
    assert found.far_edge.y == pytest.approx(2.3, abs=0.01)
    assert found.landing.y - found.far_edge.y == pytest.approx(settings.capsule_radius + settings.clearance, abs=1e-4)
    assert found.landing.z == pytest.approx(0.0, abs=1e-4)


def test_a_landing_level_with_the_top_is_checked_without_a_drop(warp_assets):
    """A platform as high as the crate 0.3 m past it: the landing is as high as the top, so there is
    no way down to sweep; the capsule at the landing decides (it fits)."""
    found = VaultProvider(crate_scene(beyond=0.3), list(warp_assets.values())).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Interaction), found
    assert found.landing.z == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("fps", [30, 144])
def test_an_in_place_vault_plays_onto_every_target_at_the_clips_rate(base, rig_dir, hop, fps):
    """Every phase ends on its target within 1 mm; the clip moves nothing, so no phase rescales the rate."""
    actor = load_actor(rig_dir / "rig.glb")
    actor.reparentTo(base.render)
    actor.setPos(0, 1, 0)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    try:
        found = VaultProvider(crate_scene(), [hop]).find(actor)
        assert isinstance(found, Interaction), found
        assert warper.check(found.asset, found.targets) == [1.0, 1.0, 1.0]
        run = WarpRun(base, warper, found.asset, found.targets, fps=fps)
        assert run.finished
        for result, target, phase in zip(run.warp.results, found.targets, IN_PLACE_VAULT["phases"]):
            # the crate faces -Y square to the character: t_offset adds along the world axes
            goal = np.array(target.pos) + np.array(phase.get("t_offset", [0, 0, 0]))
            assert np.linalg.norm(result.arrived - goal) < 1e-3
            assert result.play_rate == pytest.approx(1.0)
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


def test_an_in_place_mantle_stands_clear_of_the_edge(climb):
    found = MantleProvider(crate_scene(depth=2.0, height=1.5), [climb]).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Interaction), found
    assert found.close_edge.z == pytest.approx(1.5, abs=1e-3)


@pytest.mark.parametrize("which, expected", [("hop", "vault"), ("climb", "mantle")])
def test_traversal_with_only_one_kind(hop, climb, which, expected):
    """A character with only a vault, or only a mantle: the other kind is simply not tried."""
    assets = [hop] if which == "hop" else [climb]
    low, high = TraversalProvider(crate_scene(), assets), TraversalProvider(crate_scene(2.0, 1.5), assets)
    found = [low.find_at(Point3(0, 1, 0), 0.0), high.find_at(Point3(0, 0, 0), 0.0)]
    taken = [answer.kind for answer in found if answer]
    assert taken == [expected]
    refused = next(answer for answer in found if not answer)
    assert isinstance(refused, Refusal) and f"to {expected} " in refused.reason
    assert ("vault" if expected == "mantle" else "mantle") not in refused.reason


def test_traversal_needs_some_asset_it_can_use(hop):
    without = WarpAsset.from_dict({k: v for k, v in IN_PLACE_VAULT.items() if k != "traversal"}, hop.path)
    with pytest.raises(UsageError, match=r"no vault, mantle or jump over asset among \['in_place'\]"):
        TraversalProvider(crate_scene(), [without])


def test_a_live_view_emptied_later_is_refused(hop):
    assets = {"hop": hop}
    provider = TraversalProvider(crate_scene(), assets.values())
    assets.clear()
    assert provider.find_at(Point3(0, 1, 0), 0.0).reason == "no vault, mantle or jump over asset to traverse with"


def rig_character(rig_dir, warp_assets):
    path = rig_dir / f"character_{len(warp_assets)}.json"
    path.write_text(json.dumps({
        "format": "motionwarp.character/1", "model": "rig.glb",
        "clips": {"idle": "in_place", "walk": "walk", "run": "stride32", "fall": "in_place", "land": "in_place"},
        "speeds": {"walk": 1.2, "run": 1.4},   # the hips travel, the root joint does not
        "warp_assets": warp_assets}))
    return Character.load(path)


def test_the_demo_plays_an_asset_of_any_name(base, rig_dir, tmp_path):
    """Only an in-place vault, named `hop`: the autopilot takes the crate with it and lands past it."""
    scene = {"format": "motionwarp.scene/1", "ground": {"size": [40, 40]}, "spawn": {"pos": [0, -1, 0], "h": 0},
             "obstacles": [{"name": "crate", "shape": "box", "pos": [0, 2, 0], "size": [1.2, 0.6, 1.0]}],
             "autopilot": [[0, -1], [0, 6]]}
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    demo = Demo(base, Scene.load(tmp_path / "scene.json"), autopilot=True, asset_dir=rig_dir,
                character=rig_character(rig_dir, ["hop"]))
    started = []
    demo.on_start = lambda name, found, warp: started.append((name, found.asset.clip, warp))
    try:
        run_for(base, 12.0, 1 / 30)
        assert [(name, clip) for name, clip, _ in started] == [("crate", "in_place")]
        warp = started[0][2]
        assert len(warp.results) == 3
        assert all(np.linalg.norm(result.arrived - result.target) < 1e-3 for result in warp.results)
        assert demo.actor.getY() > 2.3
    finally:
        demo.destroy()


def test_a_missing_asset_names_the_character_file_and_entry(rig_dir):
    character = rig_character(rig_dir, ["hop", "nowhere"])
    with pytest.raises(CharacterError, match=r"character_2.json: warp_assets\[1\]: the name of a \*.warp.json in "
                                             r".*nowhere.warp.json does not exist"):
        character.load_warp_assets(rig_dir)


def test_the_tuner_edits_and_saves_an_asset_of_any_character(rig_dir, tmp_path):
    """The demo's asset hotkeys on a generated rig's in-place asset, named by a path under the asset
    folder: K moves the phase's t_offset 1 cm back, F5 writes the file, which loads with the edit."""
    from motionwarp_demo.editor.tuner import EDITS, AssetTuner
    folder = tmp_path / "hero"
    folder.mkdir()
    shutil.copy(rig_dir / "rig.glb", tmp_path / "rig.glb")
    data = dict(IN_PLACE_VAULT, model="../rig.glb")
    (folder / "hop.warp.json").write_text(json.dumps(data))
    tuner = AssetTuner({"hero/hop": WarpAsset.load(folder / "hop.warp.json")}, show=False)
    try:
        tuner.edit(*EDITS["k"])
        tuner.save()
        assert tuner.message == f"saved {folder / 'hop.warp.json'}"
        saved = WarpAsset.load(folder / "hop.warp.json")
        assert saved.phases[0].t_offset == pytest.approx((0.0, -0.51, 0.0))
    finally:
        tuner.destroy()
