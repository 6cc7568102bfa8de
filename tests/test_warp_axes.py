"""Warp math edge cases on a synthetic clip: still axes, up-and-down curves, bone alignment."""
import itertools
import json

import numpy as np
import pytest
from panda3d.core import LMatrix4f, LVector3f, Point3

from motionwarp import MotionWarper, RootMotionDriver, WarpAsset, WarpTarget, load_actor
from motionwarp.warp.warpmath import axis_weights

from .conftest import CONTACTS, MANNEQUIN, step
from .gltf_samples import two_bone_quad
from .test_warper import DEPTHS, DISTANCES, HEIGHTS, LEDGE_DISTANCES, LEDGES, assert_exact_arrival
from .warp_helpers import WarpRun, ledge_targets, vault_targets


@pytest.fixture
def hop(tmp_path):
    """A 1 s clip that goes 2 m forward and up 0.5 m and back down: no sideways motion at all."""
    two_bone_quad(tmp_path / "hop.glb", {"hop": [
        ("root", "translation", [0.0, 0.5, 1.0], [[0, 0, 0], [0, 1, 0.5], [0, 2, 0]])]})
    data = {"format": "motionwarp.asset/1", "model": "hop.glb", "clip": "hop", "root_joint": "root",
            "phases": [{"name": "hop", "start": 0.0, "end": 1.0, "min_rate": 0.5, "max_rate": 2.0}]}
    (tmp_path / "hop.warp.json").write_text(json.dumps(data))
    return WarpAsset.load(tmp_path / "hop.warp.json")


@pytest.fixture
def hop_rig(base, hop):
    actor = load_actor(hop.model_path)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    yield actor, warper, hop
    warper.destroy()
    actor.cleanup()
    actor.removeNode()


@pytest.mark.parametrize("fps", [20, 60, 144])
def test_axis_without_clip_motion_still_reaches_its_target(base, hop_rig, fps):
    actor, warper, hop = hop_rig
    run = WarpRun(base, warper, hop, [WarpTarget(Point3(0.6, 2.0, 0.0))], fps)
    assert_exact_arrival(run)
    xs = [p[0] for p in run.positions]
    assert max(xs) == pytest.approx(0.6, abs=1e-3)
    assert all(b >= a - 1e-9 for a, b in zip(xs, xs[1:])), "sideways warp went back and forth"


@pytest.mark.parametrize("end_z", [0.3, -0.2, 0.0])
def test_up_and_down_curve_arrives_exactly(base, hop_rig, end_z):
    actor, warper, hop = hop_rig
    run = WarpRun(base, warper, hop, [WarpTarget(Point3(0.0, 2.5, end_z))], 60, hitch_seed=11)
    assert_exact_arrival(run)
    motion = hop.phases[0].motion
    weights = [axis_weights(motion, f, np.array([0.0, 0.5, end_z]), 0.02) for f in np.linspace(motion.f0, motion.f1, 61)]
    assert all(0.0 <= w[2] <= 1.0 for w in weights)
    assert all(b[2] >= a[2] - 1e-12 for a, b in zip(weights, weights[1:])), "vertical weight not monotonic"


def hand_aligned(folder, asset_name, phase_name, joint="hand_l"):
    """The derived asset in `folder` with `phase_name` aligning `joint`, its offset from the contact ground truth:
    where the hand touched relative to the obstacle's near top edge (the phase's target point)."""
    clip = json.loads(CONTACTS.read_text())["clips"][asset_name]
    data = json.loads((folder / f"{asset_name}.warp.json").read_text())
    phase = next(p for p in data["phases"] if p["name"] == phase_name)
    contact = min((c for c in clip["contacts"] if c["joint"] == joint), key=lambda c: abs(c["start"] - phase["end"]))
    edge = [0.0, clip["obstacle"]["min"][1], clip["obstacle"]["max"][2]]
    phase["align_joint"] = joint
    phase["defer_rise"] = False   # the hand itself lands on the edge at the phase end, whatever its height
    phase["t_offset"] = [p - e for p, e in zip(contact["pos"], edge)]
    return WarpAsset.from_dict(data, str(folder / f"{asset_name}.warp.json")), phase["t_offset"]


class HandProbe:
    """Measures where a joint is at the end of a phase, on a second actor posed at that clip time."""

    def __init__(self, base, actor, asset, phase_index, joint):
        self.probe = load_actor(MANNEQUIN)
        self.probe.reparentTo(base.render)
        self.joint = self.probe.exposeJoint(None, "modelRoot", joint)
        self.actor, self.asset, self.index, self.base = actor, asset, phase_index, base
        self.hits = []
        base.accept("motionwarp-phase-end", self.measure)

    def measure(self, warper, name, index):
        if index != self.index:
            return
        self.probe.setTransform(self.actor.getTransform())
        self.probe.pose(self.asset.clip, self.asset.phases[index].motion.f1)
        self.probe.update(force=True)
        self.hits.append(np.array(self.joint.getPos(self.base.render)))

    def close(self):
        self.base.ignoreAll()
        self.probe.cleanup()
        self.probe.removeNode()


def test_vault_hand_lands_on_the_near_edge_for_every_box(base, rig, warp_asset_dir):
    actor, warper = rig
    asset, offset = hand_aligned(warp_asset_dir, "vault", "close_edge")
    probe = HandProbe(base, actor, asset, 0, "hand_l")
    try:
        for height, depth, distance in itertools.product(HEIGHTS, DEPTHS, DISTANCES):
            actor.setPosHpr(0, 0, 0, 0, 0, 0)
            run = WarpRun(base, warper, asset, vault_targets(height, depth, distance), 60, hitch_seed=5)
            assert_exact_arrival(run)
            edge = np.array([0.0, distance, height])
            assert np.linalg.norm(probe.hits[-1] - (edge + offset)) < 0.01, (height, depth, distance)
    finally:
        probe.close()


@pytest.mark.parametrize("name", ["mantle", "mantle_high"])
def test_mantle_hand_grabs_the_ledge_for_every_height(base, rig, name, warp_asset_dir):
    actor, warper = rig
    asset, offset = hand_aligned(warp_asset_dir, name, "ledge_top")
    probe = HandProbe(base, actor, asset, 0, "hand_l")
    try:
        for height, distance in itertools.product(LEDGES, LEDGE_DISTANCES):
            actor.setPosHpr(0, 0, 0, 0, 0, 0)
            run = WarpRun(base, warper, asset, ledge_targets(height, distance), 60, hitch_seed=5)
            assert_exact_arrival(run)
            edge = np.array([0.0, distance, height])
            assert np.linalg.norm(probe.hits[-1] - (edge + offset)) < 0.01, (height, distance)
    finally:
        probe.close()


#: The reach rig of the next tests: its root starts away from the origin, turned 30 degrees (w, x, y, z).
ROOT_START, ROOT_TURN = (0.5, 0.2, 0.0), [0.9659258, 0, 0, 0.2588190]
#: The bone's own translation (relative to the root) at 0.8 s, the phase's end, from the keys below.
BONE_AT_END = (0.16, 0.24, 1.16)


def reach_rig(folder):
    """The reach rig's file in `folder` and its one-phase asset data (align_joint bone, ending at 0.8 s)."""
    two_bone_quad(folder / "reach.glb", {"reach": [
        ("root", "translation", [0.0, 1.0], [list(ROOT_START), [0.5, 2.2, 0.3]]),
        ("root", "rotation", [0.0, 1.0], [ROOT_TURN, [1, 0, 0, 0]]),
        ("bone", "translation", [0.0, 1.0], [[0, 0, 1], [0.2, 0.3, 1.2]])]})
    return {"format": "motionwarp.asset/1", "model": "reach.glb", "clip": "reach", "root_joint": "root",
            "phases": [{"name": "reach", "start": 0.2, "end": 0.8, "align_joint": "bone"}]}


def test_align_offset_is_the_same_before_and_after_stripping(base, tmp_path):
    """The joint offset is where the joint is relative to the Actor, the clip's root motion taken off,
    whether or not the clip still holds its root motion: the root's place at frame 0 (away from the
    origin, turned 30 degrees) composed with the bone's own translation at the phase end."""
    data = reach_rig(tmp_path)
    before = WarpAsset.from_dict(data, str(tmp_path / "reach.warp.json")).phases[0].align_offset
    actor = load_actor(tmp_path / "reach.glb")
    driver = RootMotionDriver(actor, task=False)  # strips the shared clip
    after = WarpAsset.from_dict(data, str(tmp_path / "reach.warp.json")).phases[0].align_offset
    assert np.allclose(before, after, atol=1e-5)
    c, s = np.cos(np.radians(30.0)), np.sin(np.radians(30.0))
    x, y, z = BONE_AT_END
    assert np.allclose(after, (ROOT_START[0] + c * x - s * y, ROOT_START[1] + s * x + c * y, z), atol=1e-5)
    driver.destroy()
    actor.cleanup()


@pytest.mark.parametrize("turn", [0.0, 90.0, 180.0])
def test_an_aligned_joint_lands_on_the_target_when_the_root_starts_away_from_the_origin(base, tmp_path, turn):
    """The contract's promise (design 4: the joint, not the root, lands on T), on the reach rig: its
    bone, read on the played Actor when the phase ends, ends on the target (it ended 440 mm off while the
    offset was taken relative to the root), also on an Actor whose skeleton is turned as a character file
    turns one (`setRootXform`; it ended 1.0 / 1.4 m off at 90 / 180 degrees before the warp turned the
    offset into that frame)."""
    data = reach_rig(tmp_path)
    asset = WarpAsset.from_dict(data, str(tmp_path / "reach.warp.json"))
    actor = load_actor(tmp_path / "reach.glb")
    actor.reparentTo(base.render)
    bundle = actor.getPartBundle("modelRoot")
    frame = actor.find("**/+Character").getMat(actor)
    into = LMatrix4f(frame)
    into.invertInPlace()
    bundle.setRootXform(bundle.getRootXform() * frame * LMatrix4f.rotateMat(turn, LVector3f.up()) * into)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    bone = actor.exposeJoint(None, "modelRoot", "bone")
    ends = []
    base.accept("motionwarp-phase-end", lambda *_: ends.append(bone.getPos(base.render)))
    target = Point3(0.3, 1.5, 1.0)
    try:
        warper.play(asset, [WarpTarget(target, h=20.0)])
        for _ in range(120):
            step(base, 1.0 / 60)
        assert len(ends) == 1 and (ends[0] - target).length() < 1e-4, ends
    finally:
        base.ignoreAll()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
