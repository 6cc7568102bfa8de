"""Scene files (docs/design.md 6): the shipped course loads and builds; every bad field is named."""
import copy
import dataclasses
import json
import os
import re
import shutil

import pytest

from motionwarp_demo.level.scene import ObstacleMotion, Scene, SceneError

from .conftest import SAMPLES

COURSE = SAMPLES / "scenes" / "course.json"


def test_course_loads_and_builds(base):
    scene = Scene.load(COURSE)
    assert scene.spawn_pos == (0.0, -3.0, 0.0) and len(scene.autopilot) >= 2
    nodes = scene.build(base.render, base.loader)
    crate = next(n for n in nodes if n.getName() == "crate")
    low, high = crate.getTightBounds()
    assert tuple(high - low) == pytest.approx((1.2, 0.6, 1.0), abs=1e-4)
    assert low.z == pytest.approx(0.0, abs=1e-6)  # pos is the centre of the bottom face


def test_model_obstacle_path_is_relative_to_the_scene(base, tmp_path):
    data = json.loads(COURSE.read_text())
    (tmp_path / "rock.glb").write_bytes((SAMPLES / "assets" / "mannequin.glb").read_bytes())
    data["obstacles"] = [{"name": "rock", "shape": "model", "path": "rock.glb", "pos": [4, 2, 0], "h": 30, "scale": 1.0}]
    path = tmp_path / "rocks.json"
    path.write_text(json.dumps(data))
    [rock] = Scene.load(path).build(base.render, base.loader)
    assert rock.getH() == pytest.approx(30.0) and not rock.getBounds().isEmpty()


def change(edit):
    data = copy.deepcopy(json.loads(COURSE.read_text()))
    edit(data)
    return data


BAD = {
    "format": (lambda d: d.update(format="scene/0"), "format: expected 'motionwarp.scene/1'"),
    "unknown key": (lambda d: d.update(sky="blue"), "sky: unknown key"),
    "ground size": (lambda d: d["ground"].update(size=[60, -1]), "ground.size: expected two positive sizes"),
    "spawn heading": (lambda d: d["spawn"].update(h="north"), "spawn.h: expected a finite number"),
    "no obstacles": (lambda d: d.update(obstacles=[]), "obstacles: expected a non-empty list"),
    "shape": (lambda d: d["obstacles"][1].update(shape="sphere"), r"obstacles\[1\].shape: expected one of 'box', 'model'"),
    "box size": (lambda d: d["obstacles"][0].update(size=[1, 1]), r"obstacles\[0\].size: expected a list of three finite numbers"),
    "box without size": (lambda d: d["obstacles"][0].pop("size"), r"obstacles\[0\].size: missing \(required for a box\)"),
    "box with path": (lambda d: d["obstacles"][0].update(path="x.glb"), r"obstacles\[0\].path: unknown key for a box"),
    "missing model": (lambda d: d["obstacles"].append({"name": "rock", "shape": "model", "path": "no.glb", "pos": [0, 0, 0]}),
                      rf"obstacles\[{len(json.loads(COURSE.read_text())['obstacles'])}\].path: "
                      "expected a model file next to the scene, 'no.glb' does not exist"),
    "duplicate name": (lambda d: d["obstacles"][1].update(name="crate"), r"obstacles\[1\].name: expected a unique name"),
    "waypoint": (lambda d: d.update(autopilot=[[0, 1, 2]]), r"autopilot\[0\]: expected a list of two finite numbers"),
}


def moving(**motion):
    """The course's first obstacle (the crate) given `motion` (keys given as None are left out)."""
    full = {"offset": [1, 0, 0], "seconds": 2, **motion}
    return lambda d: d["obstacles"][0].update(motion={k: v for k, v in full.items() if v is not None})


M = r"obstacles\[0\]\.motion"
BAD.update({
    "motion not an object": (lambda d: d["obstacles"][0].update(motion="slide"), rf"{M}: expected a JSON object, got str"),
    "motion unknown key": (moving(speed=1), rf"{M}\.speed: unknown key; expected one of back_and_forth, delay, offset, "
                                            "seconds, start"),
    "motion without offset": (moving(offset=None), rf"{M}\.offset: missing \(required\)"),
    "motion without seconds": (moving(seconds=None), rf"{M}\.seconds: missing \(required\)"),
    "motion offset of two": (moving(offset=[1, 0]), rf"{M}\.offset: expected a list of three finite numbers"),
    "motion offset zero": (moving(offset=[0, 0, 0]), rf"{M}\.offset: expected metres to slide by, not \[0, 0, 0\]"),
    "motion seconds zero": (moving(seconds=0), rf"{M}\.seconds: expected a positive number of seconds, got 0"),
    "motion seconds text": (moving(seconds="slow"), rf"{M}\.seconds: expected a finite number .* got 'slow'"),
    "motion delay negative": (moving(delay=-1), rf"{M}\.delay: expected seconds from 0 up, got -1"),
    "motion delay infinite": (moving(delay=float("inf")), rf"{M}\.delay: expected a finite number"),
    "motion start": (moving(start="touch"), rf"{M}\.start: expected one of 'scene', 'interaction', got 'touch'"),
    "motion back_and_forth": (moving(back_and_forth="yes"), rf"{M}\.back_and_forth: expected true or false, got 'yes'"),
})


def test_a_motion_slides_once_or_back_and_forth_from_its_delay():
    """design 6: `offset` in `seconds` after `delay`; once it stays at the far end, back and forth it returns."""
    once = ObstacleMotion((2.0, 0.0, 0.0), 4.0, delay=1.0)
    swing = dataclasses.replace(once, back_and_forth=True)
    assert [once.offset_at(t).x for t in (0.0, 1.0, 2.0, 5.0, 9.0)] == pytest.approx([0.0, 0.0, 0.5, 2.0, 2.0])
    assert [swing.offset_at(t).x for t in (2.0, 5.0, 7.0, 9.0, 10.0)] == pytest.approx([0.5, 2.0, 1.0, 0.0, 0.5])


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_field_is_named(tmp_path, case):
    edit, message = BAD[case]
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(change(edit)))
    shutil.copytree(COURSE.parent / "meshes", tmp_path / "meshes")  # the course's model obstacles
    with pytest.raises(SceneError, match=message):
        Scene.load(path)


@pytest.mark.parametrize("make, kind", [(os.mkfifo, "is a FIFO (named pipe)"), (os.mkdir, "is a directory")])
def test_a_model_path_that_is_not_a_file_says_what_it_is(tmp_path, make, kind):
    make(tmp_path / "rock.glb")
    data = change(lambda d: d["obstacles"].append({"name": "rock", "shape": "model", "path": "rock.glb", "pos": [0, 0, 0]}))
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data))
    shutil.copytree(COURSE.parent / "meshes", tmp_path / "meshes")
    with pytest.raises(SceneError, match=rf"\.path: expected a model file next to the scene, 'rock.glb' {re.escape(kind)}$"):
        Scene.load(path)


def test_missing_scene_file(tmp_path):
    with pytest.raises(SceneError, match="nowhere.json: file not found"):
        Scene.load(tmp_path / "nowhere.json")


@pytest.mark.parametrize("size", [80.0, 1e5])
def test_the_grounds_build_cost_is_bounded_whatever_its_size(size):
    """At most MAX_TILES x MAX_TILES quads (two triangles each), and the whole square covered."""
    from panda3d.core import NodePath
    from motionwarp_demo.level.world import MAX_TILES, add_ground
    ground = add_ground(NodePath("level"), size)
    triangles = sum(geom.getNumPrimitives() for node in ground.findAllMatches("**/+GeomNode")
                    for geom in (node.node().getGeom(i).decompose().getPrimitive(0)
                                 for i in range(node.node().getNumGeoms())))
    assert triangles <= 2 * MAX_TILES ** 2
    low, high = ground.getTightBounds()
    assert (low[0], low[1], high[0], high[1]) == pytest.approx((-size / 2, -size / 2, size / 2, size / 2), rel=1e-6)
