"""Warps that cross-fade from and back to the clips playing before (blend_in / blend_out).

Oracles: phase targets come from the targets given and the asset's offsets (docs/design.md 4:
T = pos + rot * t_offset), the effect ramps from the configured times and the frame time, the
shared root motion from the clips' raw root tracks and the control effects read from the
Actor, and pops from joint positions of the posed skeleton against the clip's own peak speed.
"""
import json
import math

import numpy as np
import pytest
from direct.showbase.DirectObject import DirectObject
from panda3d.core import LQuaternion, PartBundle, Vec3

from motionwarp import MotionWarper, WarpAsset, WarpRefused, WarpTarget, load_actor
from motionwarp.warp.warpmath import angle_between, axis_weights, heading_quat, slerp

from .bench.bench_warp_pops import joint_positions as bench_joint_positions, peak_joint_speed
from .conftest import MANNEQUIN, step
from .warp_helpers import clip_rise, ledge_targets, vault_targets

BLEND = 0.2
EVENTS = ("motionwarp-phase-end", "motionwarp-blend-out", "motionwarp-finished", "motionwarp-cancelled")


class BlendRig(DirectObject):
    """A blending mannequin walking (or standing) on its own clips, as a game's locomotion would:
    each frame, before the warper, the locomotion clip keeps what the warp clip leaves of the pose
    (or, with `loop_weight`, keeps that effect throughout)."""

    def __init__(self, base, loop="walk", blend=True, loop_weight=None, model=MANNEQUIN, **settings):
        super().__init__()
        self.base = base
        self.actor = load_actor(model)
        self.actor.reparentTo(base.render)
        if blend:
            self.actor.enableBlend(blendType=PartBundle.BT_normalized_linear)
        self.warper = MotionWarper(self.actor, taskmgr=base.taskMgr, render=base.render, **settings)
        self.loop, self.loop_weight = loop, loop_weight
        self.warper.driver.loop(loop)
        if blend:
            self.actor.setControlEffect(loop, 1.0)
        self.bundle = self.actor.getPartBundle("modelRoot")
        self.events, self.frames = [], []   # frames: one record per frame, from the start
        self.warp_clip, self.play_index = None, None
        for event in EVENTS:
            self.accept(event, self._seen, [event])
        self.starts = {}   # phase name -> where the actor was as it started (its origin)
        self.accept("motionwarp-phase-start", self._started)
        base.taskMgr.add(self._locomotion, "test-locomotion", sort=40)
        base.taskMgr.add(self._record, "test-record", sort=49)

    def effect(self, clip):
        return self.bundle.getControlEffect(self.actor.getAnimControl(clip))

    def _seen(self, event, warper, name, *rest):
        if warper is self.warper:
            self.events.append((event, name, len(self.frames), np.array(self.actor.getPos()),
                                self.actor.getQuat(), rest))

    def _started(self, warper, name, *rest):
        if warper is self.warper:
            self.starts[name] = np.array(self.actor.getPos())

    def _locomotion(self, task):
        if self.warp_clip is not None and self.bundle.getAnimBlendFlag():
            weight = 1.0 - self.effect(self.warp_clip) if self.loop_weight is None else self.loop_weight
            self.actor.setControlEffect(self.loop, weight)
        return task.cont

    def _record(self, task):
        control = self.actor.getAnimControl(self.warp_clip) if self.warp_clip else None
        self.frames.append({"effect": self.effect(self.warp_clip) if control else 0.0,
                            "loop_effect": self.effect(self.loop),
                            "pos": np.array(self.actor.getPos()), "h": self.actor.getH(),
                            "frame": control.getFullFframe() if control else None,
                            "loop_frame": self.actor.getAnimControl(self.loop).getFullFframe(),
                            "joints": joint_positions(self.actor)})
        return task.cont

    @property
    def warp_frames(self):
        """The frames from the first one the warp played in."""
        return self.frames[self.play_index:]

    def play(self, asset, targets, **kwargs):
        warp = self.warper.play(asset, targets, **kwargs)
        self.warp_clip, self.play_index = asset.clip, len(self.frames)
        if warp.effect is None and self.bundle.getAnimBlendFlag():   # no fade: the game switches at once
            self.actor.setControlEffect(asset.clip, 1.0)
            self.actor.setControlEffect(self.loop, 0.0)
        return warp

    def run(self, fps=60, seconds=6.0, until_done=True):
        for _ in range(int(seconds * fps)):
            step(self.base, 1.0 / fps)
            if until_done and not self.warper.is_warping:
                break

    def names(self):
        return [event[0] for event in self.events]

    def destroy(self):
        self.ignoreAll()
        self.base.taskMgr.remove("test-locomotion")
        self.base.taskMgr.remove("test-record")
        self.warper.destroy()
        self.actor.cleanup()
        self.actor.removeNode()


@pytest.fixture
def make_rig(base):
    made = []

    def build(**kwargs):
        made.append(BlendRig(base, **kwargs))
        return made[-1]
    yield build
    for rig in made:
        rig.destroy()


def joint_positions(actor):
    return np.array([tuple(p) for p in bench_joint_positions(actor)])


def expected_goals(asset, targets):
    """Each phase's root target and heading, from the targets (heading only) and the asset's offsets."""
    goals = []
    for phase, target in zip(asset.phases, targets):
        quat = heading_quat(target.h)
        goals.append((np.array(target.pos) + np.array(quat.xform(Vec3(*phase.t_offset))),
                      heading_quat(phase.r_offset[0]) * quat))
    return goals


def assert_phases_end_on_targets(rig, asset, targets):
    """Each phase ends on its goal; a deferring phase (design 4, Deferred rise) no higher than the
    clip's own rise from where it started (level ground, scale 1)."""
    ends = [e for e in rig.events if e[0] == "motionwarp-phase-end"]
    assert [e[1] for e in ends] == [p.name for p in asset.phases]
    for phase, (event, name, _, pos, quat, _), (goal, goal_quat) in zip(asset.phases, ends, expected_goals(asset, targets)):
        if phase.defer_rise:
            goal[2] = min(goal[2], rig.starts[name][2] + clip_rise(asset, phase))
        assert np.linalg.norm(pos - goal) < 1e-3, f"{name}: {np.linalg.norm(pos - goal) * 1000:.2f} mm off"
        assert angle_between(quat, goal_quat) < 0.1, name


CASES = [("vault", vault_targets(1.0, 0.6, 1.0)), ("vault", vault_targets(0.6, 0.3, 0.7, h=25.0)),
         ("mantle", ledge_targets(1.5, 0.5)), ("mantle_high", ledge_targets(2.1, 0.55, h=-30.0))]


@pytest.mark.parametrize("fps", [30, 60, 144])
@pytest.mark.parametrize("name, targets", CASES)
def test_a_blended_warp_still_ends_every_phase_on_its_target(make_rig, warp_assets, name, targets, fps):
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.run(fps=fps, seconds=0.25, until_done=False)   # walking at full speed
    asset = warp_assets[name]
    here = rig.actor.getPos()
    targets = [WarpTarget(target.pos + here, h=target.h) for target in targets]
    rig.play(asset, targets)
    rig.run(fps=fps)
    assert rig.names()[-1] == "motionwarp-finished"
    assert 0.0 < rig.warp_frames[0]["effect"] < 1.0 and rig.warp_frames[0]["loop_effect"] > 0.0, "no blend happened"
    assert_phases_end_on_targets(rig, asset, targets)


def test_the_effect_ramps_in_and_out_over_the_configured_times(make_rig, warp_assets):
    fps, blend_in, blend_out = 60, 0.25, 0.3
    rig = make_rig(blend_in=0.1, blend_out=0.1)   # play()'s arguments override the settings
    asset = warp_assets["vault"]
    rig.play(asset, vault_targets(1.0, 0.6, 1.0), blend_in=blend_in, blend_out=blend_out)
    rig.run(fps=fps)
    frames = rig.warp_frames
    effects = [f["effect"] for f in frames]
    rise = math.ceil(blend_in * fps - 1e-9)
    assert effects[:rise + 1] == pytest.approx([min(1.0, (k + 1) / fps / blend_in) for k in range(rise + 1)])
    out = next(e for e in rig.events if e[0] == "motionwarp-blend-out")
    assert out[5] == (pytest.approx(blend_out),)
    start = out[2] - rig.play_index   # warp frames recorded before the event's frame
    last_frame = asset.track.num_frames - 1
    # The fade starts on the first frame whose clip time is within blend_out of the clip's end.
    assert frames[start]["frame"] >= last_frame - blend_out * asset.track.fps - 1e-6
    assert frames[start - 1]["frame"] < last_frame - blend_out * asset.track.fps
    assert all(e == pytest.approx(1.0) for e in effects[rise:start])
    fade = effects[start + 1:]
    assert fade == pytest.approx([max(0.0, 1.0 - (k + 1) / fps / blend_out) for k in range(len(fade))], abs=1e-6)
    assert fade[-1] == 0.0 and rig.names()[-1] == "motionwarp-finished"
    assert not rig.actor.getAnimControl(asset.clip).isPlaying()


def test_the_blend_out_is_no_longer_than_the_clip_plays_after_its_last_phase(make_rig, warp_assets):
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND)
    rig.play(asset, vault_targets(1.0, 0.6, 1.0), blend_out=5.0)
    rig.run()
    after_last = (asset.track.num_frames - 1 - asset.phases[-1].end * asset.track.fps) / asset.track.fps
    out = next(e for e in rig.events if e[0] == "motionwarp-blend-out")
    assert out[5] == (pytest.approx(after_last),)
    last_end = [e for e in rig.events if e[0] == "motionwarp-phase-end"][-1]
    assert last_end[2] == out[2], "the fade starts on the frame the last phase ends"
    assert rig.names()[-1] == "motionwarp-finished"


@pytest.mark.parametrize("blend_type, scale", [(PartBundle.BT_normalized_linear, 1.0), (PartBundle.BT_linear, 1.0),
                                               (PartBundle.BT_normalized_linear, 1.3)],
                         ids=["normalised", "linear", "scaled actor"])
def test_root_motion_before_the_first_phase_is_the_blend_of_the_clips(make_rig, warp_assets, warp_asset_dir, tmp_path,
                                                                      blend_type, scale):
    """A vault whose first phase starts at 0.3 s: while it fades in, each frame moves the actor by
    share * the vault's root motion + (1 - share) * the walk's, share = effect / total effect, whether
    the Actor normalises its blend or not (the effects add up to 1 here, so both pose alike), times
    the actor's scale."""
    data = json.loads((warp_asset_dir / "vault.warp.json").read_text())
    data["model"] = str(MANNEQUIN)
    data["phases"][0]["start"] = 0.3
    path = tmp_path / "late.warp.json"
    path.write_text(json.dumps(data))
    asset = WarpAsset.load(path)
    walk = warp_assets["vault"]   # the same model: its driver tracks give the walk's raw root motion
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.actor.enableBlend(blendType=blend_type)
    rig.actor.setScale(scale)
    rig.run(seconds=0.1, until_done=False)
    rig.play(asset, [WarpTarget(target.pos + rig.actor.getPos()) for target in vault_targets(1.0, 0.6, 1.3)])
    walk_track = rig.warper.driver.tracks["walk"]
    for _ in range(16):   # 0.27 s: all before the first phase
        step(rig.base, 1 / 60)
    frames = rig.frames[rig.play_index - 1:]
    frames[0] = dict(frames[0], frame=0.0)
    assert walk is not None and frames[-1]["frame"] < 0.3 * asset.track.fps
    for prev, cur in zip(frames, frames[1:]):
        assert cur["loop_frame"] > prev["loop_frame"], "the walk wrapped: pick a shorter window"
        vault_step = asset.track.motion(prev["frame"]).inverse() * asset.track.motion(cur["frame"])
        walk_step = walk_track.motion(prev["loop_frame"]).inverse() * walk_track.motion(cur["loop_frame"])
        share = cur["effect"] / (cur["effect"] + cur["loop_effect"])
        local = (share * np.array(vault_step.pos) + (1 - share) * np.array(walk_step.pos)) * scale
        moved = np.array(heading_quat(prev["h"]).xform(Vec3(*local)))
        assert cur["pos"] == pytest.approx(prev["pos"] + moved, abs=1e-5)
        turn = share * vault_step.h + (1 - share) * walk_step.h
        assert (cur["h"] - prev["h"] - turn + 180) % 360 - 180 == pytest.approx(0.0, abs=1e-3)
    assert any(0.0 < f["effect"] < 1.0 for f in frames)


def largest_jump_ratio(frames, indices, peak, dt):
    return max(np.max(np.linalg.norm(frames[i]["joints"] - frames[i - 1]["joints"], axis=1)) for i in indices) / (peak * dt)


@pytest.mark.parametrize("blend", [BLEND, 0.0])
def test_blending_in_and_back_out_to_locomotion_does_not_pop(make_rig, warp_assets, blend):
    """No frame moves any joint farther than the vault's own fastest joint does in a frame; the
    same warp switched in one frame (blend 0) does: that is what the test would catch."""
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=blend, blend_out=blend)
    rig.run(seconds=0.3, until_done=False)
    rig.play(asset, [WarpTarget(target.pos + rig.actor.getPos()) for target in vault_targets(1.0, 0.6, 1.0)])
    rig.run()
    if blend == 0.0:   # the game switches back by hand, as without the warper's fade
        rig.actor.setControlEffect(asset.clip, 0.0)
    rig.run(seconds=0.3, until_done=False)
    peak = peak_joint_speed("vault")
    start = rig.play_index
    ratio_in = largest_jump_ratio(rig.frames, range(start - 5, start + 20), peak, 1 / 60)
    end = len(rig.frames) - 18
    ratio_out = largest_jump_ratio(rig.frames, range(end - 30, end + 5), peak, 1 / 60)
    if blend:
        assert ratio_in < 1.0 and ratio_out < 1.0, (ratio_in, ratio_out)
        assert rig.effect("walk") == 1.0 and rig.effect(asset.clip) == 0.0
    else:
        assert max(ratio_in, ratio_out) > 1.5, (ratio_in, ratio_out)


def test_a_cancel_fades_out_and_is_sent_when_the_fade_ends(make_rig, warp_assets):
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    warp = rig.play(asset, vault_targets(1.0, 0.6, 1.0))
    for _ in range(6):
        step(rig.base, 1 / 60)
    at_cancel = rig.effect(asset.clip)
    assert 0.0 < at_cancel < 1.0
    rig.warper.cancel("the player let go")
    assert rig.names() == ["motionwarp-blend-out"]
    assert rig.actor.getAnimControl(asset.clip).getPlayRate() == 1.0 and warp.rate_scale == 1.0
    frames = math.ceil(at_cancel * BLEND * 60 - 1e-9)
    for k in range(frames):
        step(rig.base, 1 / 60)
        assert rig.effect(asset.clip) == pytest.approx(max(0.0, at_cancel - (k + 1) / 60 / BLEND), abs=1e-6)
    assert rig.names() == ["motionwarp-blend-out", "motionwarp-cancelled"]
    assert rig.events[-1][5] == ("the player let go",)
    assert not rig.warper.is_warping and not rig.actor.getAnimControl(asset.clip).isPlaying()


def test_a_cancel_without_fade_stops_at_once(make_rig, warp_assets):
    asset = warp_assets["mantle"]
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.play(asset, ledge_targets(1.5, 0.5))
    step(rig.base, 1 / 60)
    rig.warper.cancel("now", blend_out=0)
    assert rig.names() == ["motionwarp-cancelled"] and not rig.warper.is_warping
    assert not rig.actor.getAnimControl(asset.clip).isPlaying()


@pytest.mark.parametrize("frames_in", [3, 30])
def test_another_clip_taking_over_cancels_during_and_after_the_fade(make_rig, warp_assets, frames_in):
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.play(asset, vault_targets(1.0, 0.6, 1.0))
    for _ in range(frames_in):
        step(rig.base, 1 / 60)
    rig.actor.setControlEffect(asset.clip, rig.effect(asset.clip) * 0.5)
    step(rig.base, 1 / 60)
    assert rig.names()[-1] == "motionwarp-cancelled" and rig.events[-1][5] == ("another clip took over",)
    assert not rig.warper.is_warping


def test_without_blending_the_fade_is_off_and_the_warp_plays_as_unblended(make_rig, warp_assets):
    asset = warp_assets["vault"]
    targets = vault_targets(1.0, 0.6, 1.0)
    paths = []
    for settings in ({"blend_in": BLEND, "blend_out": BLEND}, {}):
        rig = make_rig(blend=False, loop="idle", **settings)
        warp = rig.play(asset, targets)
        assert warp.effect is None
        rig.run()
        assert rig.names()[-1] == "motionwarp-finished"
        assert_phases_end_on_targets(rig, asset, targets)
        paths.append(np.array([f["pos"] for f in rig.warp_frames]))
        rig.destroy()
    assert paths[0].shape == paths[1].shape and np.allclose(paths[0], paths[1], atol=1e-6)


@pytest.mark.parametrize("max_behind_m, refused", [(0.0, True), (0.1, False)])
def test_a_mantle_started_with_the_chest_against_the_ledge(make_rig, warp_assets, max_behind_m, refused):
    """0.30 m from the face, 0.07 m past the mantle's authored 0.37 m start: the default behind
    check (2 cm) refuses it; with max_behind_m 0.1 the phase warps back and ends on its target."""
    asset = warp_assets["mantle"]
    targets = ledge_targets(1.5, 0.30)
    rig = make_rig(loop="idle", blend_in=BLEND, blend_out=BLEND, max_behind_m=max_behind_m)
    if refused:
        with pytest.raises(WarpRefused, match=r"behind the character \(0\.07 m back"):
            rig.play(asset, targets)
        return
    rig.play(asset, targets)
    rig.run()
    assert rig.names()[-1] == "motionwarp-finished"
    assert_phases_end_on_targets(rig, asset, targets)
    with pytest.raises(WarpRefused, match="behind"):   # farther back is still a moonwalk
        rig.play(asset, ledge_targets(1.5, 0.30 - 0.1))


def test_the_blend_times_come_from_prc_and_bad_ones_name_the_setting(make_rig, warp_assets):
    from panda3d.core import loadPrcFileData, unloadPrcFile
    from motionwarp.base.errors import UsageError
    page = loadPrcFileData("motionwarp-test-blend", "motionwarp-blend-in 0.3\nmotionwarp-blend-out 0.15")
    try:
        rig = make_rig()
        warp = rig.play(warp_assets["mantle"], ledge_targets(1.5, 0.5))
        assert (warp.blend_in, warp.blend_out) == (0.3, 0.15)
        with pytest.raises(UsageError, match="setting blend_in: expected a number from 0 to 10, got -0.1"):
            rig.warper.play(warp_assets["mantle"], ledge_targets(1.5, 0.5), blend_in=-0.1)
        with pytest.raises(UsageError, match="setting blend_out"):
            rig.warper.cancel(blend_out=float("nan"))
        assert rig.warper.is_warping   # a bad argument changes nothing
    finally:
        unloadPrcFile(page)


@pytest.mark.parametrize("hitch_at", [1, 8, 40])
def test_a_hitch_during_or_after_the_fade_in_still_arrives_exactly(make_rig, warp_assets, hitch_at):
    """A 0.3 s frame: inside the fade-in (it ends the fade and crosses frames of the phase), or
    one that crosses a phase end while the phase has shared frames."""
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.run(seconds=0.2, until_done=False)
    targets = [WarpTarget(target.pos + rig.actor.getPos()) for target in vault_targets(1.2, 0.8, 1.2)]
    rig.play(asset, targets)
    for k in range(600):
        step(rig.base, 0.3 if k == hitch_at else 1 / 60)
        if not rig.warper.is_warping:
            break
    assert rig.names()[-1] == "motionwarp-finished"
    assert_phases_end_on_targets(rig, asset, targets)


def rest_share(before, now):
    """The part of what is left that a step from weight `before` to `now` covers (all once w reached 1)."""
    return 1.0 if before >= 1.0 - 1e-9 else min(max((now - before) / (1.0 - before), 0.0), 1.0)


class BlendedPath:
    """Where each frame should put the actor, replayed from the recorded frames (docs/design.md 4): clip
    steps cut at phase bounds, the other clips' step shared out in proportion to the clip frames each
    piece covers; outside phases share * clip + (1 - share) * others; in a phase that never shared a
    frame the contract's P0 + R0 (A + D w), slerp(R0, Q, u); in one that did, the blended step plus
    the error left to the target (assuming the clip's own motion from there) times the rest share."""

    def __init__(self, asset, goals, walk_track, still):
        self.asset, self.goals, self.walk, self.still = asset, goals, walk_track, still
        self.index, self.in_phase, self.blended, self.origin = 0, False, False, None

    def frame(self, prev, cur):
        self.pos, self.quat = Vec3(*prev["pos"]), heading_quat(prev["h"])
        self.share = cur["effect"] / (cur["effect"] + cur["loop_effect"])
        self.shared = self.share < 1.0
        at, a, b = self.walk.motion, prev["loop_frame"], cur["loop_frame"]
        walk = at(a).inverse() * (at(b) if b >= a else at(self.walk.num_frames) * at(0).inverse() * at(b))   # the loop seam
        self.others, self.span, self.left = walk, cur["frame"] - prev["frame"], 1.0
        start, end, phases = prev["frame"], cur["frame"], self.asset.phases
        while True:
            if self.in_phase:
                phase = phases[self.index]
                stop = min(end, phase.motion.f1)
                self.blended = self.blended or self.shared
                (self._blend_place if self.blended else self._place)(phase, start, stop)
                start = stop
                if end < phase.motion.f1:
                    break
                self.in_phase, self.index = False, self.index + 1
                continue
            next_start = phases[self.index].motion.f0 if self.index < len(phases) else math.inf
            stop = min(end, next_start)
            self._mix(start, stop)
            start = stop
            if end < next_start:
                break
            self.in_phase, self.blended, self.origin = True, self.shared, (Vec3(self.pos), LQuaternion(self.quat))
        return np.array(self.pos), self.quat

    def _other(self, start, stop):
        if not self.shared:
            return np.zeros(3), 0.0, 1.0
        part = 1.0 if self.span <= 1e-9 else (stop - start) / self.span   # all of it when the clip stood still
        part, self.left = min(part, self.left), self.left - min(part, self.left)   # and never more than all
        return np.array(self.others.pos) * part, self.others.h * part, self.share

    def _mix(self, start, stop):
        track = self.asset.track
        clip = track.motion(start).inverse() * track.motion(stop)
        other_pos, other_h, share = self._other(start, stop)
        local = share * np.array(clip.pos) + (1 - share) * other_pos
        self.pos = self.pos + self.quat.xform(Vec3(*local))
        self.quat = heading_quat(share * clip.h + (1 - share) * other_h) * self.quat

    def _place(self, phase, start, frame):
        (p0, r0), (goal, goal_quat), motion = self.origin, self.goals[self.index], phase.motion
        end = np.array(motion.end_displacement)
        warp = (np.array(r0.conjugate().xform(Vec3(*goal) - p0)) - end) * self._warped(phase)
        weights = axis_weights(motion, frame, list(warp), self.still)
        local = np.array(motion.displacement(frame)) + warp * np.array(weights)
        self.pos = p0 + r0.xform(Vec3(*local))
        if phase.warp_rotation:
            self.quat = slerp(r0, goal_quat, (frame - motion.f0) / (motion.f1 - motion.f0))
        else:
            self.quat = heading_quat(self.asset.track.heading(frame) - self.asset.track.heading(motion.f0)) * r0

    @staticmethod
    def _warped(phase):
        """1 on the axes the phase warps, else 0."""
        return np.array([float(phase.warp_translation and letter in phase.axes) for letter in "xyz"])

    def _blend_place(self, phase, start, frame):
        (p0, r0), (goal, goal_quat), motion = self.origin, self.goals[self.index], phase.motion
        before, now, end = (np.array(motion.displacement(f)) for f in (start, frame, motion.f1))
        other_pos, other_h, share = self._other(start, frame)
        moved = self.pos + r0.xform(Vec3(*(now - before))) * share + self.quat.xform(Vec3(*other_pos)) * (1 - share)
        full = np.array(r0.conjugate().xform(Vec3(*goal) - p0))
        need = np.array(r0.conjugate().xform(Vec3(*goal) - moved)) - (end - now)
        w0, w1 = (axis_weights(motion, f, list(full - end), self.still) for f in (start, frame))
        step = need * np.array([rest_share(a, b) for a, b in zip(w0, w1)]) * self._warped(phase)
        self.pos = moved + r0.xform(Vec3(*step))
        if phase.warp_rotation:
            turned = heading_quat((1 - share) * other_h) * self.quat
            span = motion.f1 - motion.f0
            self.quat = slerp(turned, goal_quat, rest_share((start - motion.f0) / span, (frame - motion.f0) / span))
        else:
            turn = self.asset.track.heading(frame) - self.asset.track.heading(start)
            self.quat = heading_quat(share * turn + (1 - share) * other_h) * self.quat


@pytest.mark.parametrize("first_phase_start, blend_in, loop_weight", [(0.0, 1.2, None), (0.3, 0.5, None),
                                                                    (0.0, BLEND, 0.5)])
def test_every_frame_of_a_blended_warp_moves_the_actor_as_the_blend_says(make_rig, warp_assets, warp_asset_dir, tmp_path,
                                                                         first_phase_start, blend_in, loop_weight):
    """At 45 fps (2/3 of a clip frame a frame) frames cross phase bounds while the clips share the
    pose; each frame is replayed from the one before it and compared (BlendedPath). The far edge
    keeps the clip's heading and the landing warps only x and y; with a loop_weight the walk keeps
    its effect, so every phase shares every frame."""
    data = json.loads((warp_asset_dir / "vault.warp.json").read_text())
    data["model"] = str(MANNEQUIN)
    data["phases"][0]["start"] = first_phase_start
    data["phases"][1]["warp_rotation"] = False
    data["phases"][2]["axes"] = "xy"
    path = tmp_path / "vault.warp.json"
    path.write_text(json.dumps(data))
    asset = WarpAsset.load(path)
    rig = make_rig(blend_in=blend_in, blend_out=BLEND, loop_weight=loop_weight)
    rig.run(fps=45, seconds=0.2, until_done=False)
    targets = [WarpTarget(target.pos + rig.actor.getPos(), h=target.h) for target in vault_targets(1.0, 0.6, 1.2, h=20.0)]
    rig.play(asset, targets)
    rig.run(fps=45)
    assert rig.names()[-1] == "motionwarp-finished"
    fade_out = next(e for e in rig.events if e[0] == "motionwarp-blend-out")[2]
    frames = rig.frames[rig.play_index - 1:fade_out]
    frames[0] = dict(frames[0], frame=0.0)
    replay = BlendedPath(asset, expected_goals(asset, targets), rig.warper.driver.tracks["walk"],
                         rig.warper.settings.still_axis_m)
    crossed = 0
    for k, (prev, cur) in enumerate(zip(frames, frames[1:])):
        pos, quat = replay.frame(prev, cur)
        assert cur["pos"] == pytest.approx(pos, abs=1e-4), f"frame {k}"
        assert angle_between(heading_quat(cur["h"]), quat) < 1e-2, f"frame {k}"
        crossed += replay.shared and any(prev["frame"] < p.motion.f0 < cur["frame"] for p in asset.phases)
    assert crossed, "no shared frame crossed a phase bound"
    ends = [e[3] for e in rig.events if e[0] == "motionwarp-phase-end"]
    for phase, end, (goal, _) in zip(asset.phases, ends, expected_goals(asset, targets)):   # on the warped axes
        warped = BlendedPath._warped(phase).astype(bool)
        assert end[warped] == pytest.approx(goal[warped], abs=1e-3), phase.name


def test_a_warp_with_only_a_blend_out_starts_at_full_effect(make_rig, warp_assets):
    """blend_in 0: the clip has the whole pose from the first frame (effect 1, nothing to fade in),
    and still fades out over blend_out at the end."""
    asset, targets = warp_assets["vault"], vault_targets(1.0, 0.6, 1.0)
    rig = make_rig(blend_in=0.0, blend_out=BLEND)
    warp = rig.play(asset, targets)
    assert warp.effect == 1.0
    rig.run()
    assert rig.names()[-1] == "motionwarp-finished"
    out = next(e for e in rig.events if e[0] == "motionwarp-blend-out")[2] - rig.play_index
    assert all(f["effect"] == 1.0 for f in rig.warp_frames[:out])
    fade = [f["effect"] for f in rig.warp_frames[out + 1:]]
    assert fade == pytest.approx([max(0.0, 1.0 - (k + 1) / 60 / BLEND) for k in range(len(fade))], abs=1e-6)
    assert_phases_end_on_targets(rig, asset, targets)


def test_a_cancel_in_a_phase_restores_the_base_rate_of_the_warp_clip_only(make_rig, warp_assets):
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.play(asset, vault_targets(1.0, 0.6, 1.4), rate=1.25)
    for _ in range(6):
        step(rig.base, 1 / 60)
    assert rig.actor.getAnimControl(asset.clip).getPlayRate() != pytest.approx(1.25), "the phase warps the rate"
    rig.warper.cancel("the player let go")
    assert rig.actor.getAnimControl(asset.clip).getPlayRate() == pytest.approx(1.25)
    assert rig.actor.getAnimControl(rig.loop).getPlayRate() == 1.0


def test_a_step_before_the_fade_in_started_with_nothing_else_showing_moves_nothing(make_rig, warp_assets):
    """step() called by hand right after play(): the clip's effect is still 0 and no other clip shows
    (no effects at all): the clip has not advanced, so nothing moves and the warp goes on."""
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.play(asset, vault_targets(1.0, 0.6, 1.0))
    rig.actor.setControlEffect(rig.loop, 0.0)
    before = rig.actor.getPos()
    rig.warper.step()
    assert rig.actor.getPos() == before and rig.warper.is_warping
    rig.run()
    assert rig.names()[-1] == "motionwarp-finished"


@pytest.mark.parametrize("how", ["replaced", "destroyed"])
def test_a_fading_warp_replaced_or_destroyed_is_cancelled_at_once(make_rig, warp_assets, how):
    """play() over a warp and destroy() stop it without a fade (their blend_out is 0): the cancel is
    sent at once and no blend-out."""
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND, blend_out=BLEND)
    rig.play(asset, vault_targets(1.0, 0.6, 1.0))
    for _ in range(6):
        step(rig.base, 1 / 60)
    if how == "replaced":
        rig.play(asset, vault_targets(1.0, 0.6, 1.2))
        reason = "a new warp replaced it"
    else:
        rig.warper.destroy()
        reason = "the warper was destroyed"
    assert rig.names() == ["motionwarp-cancelled"] and rig.events[0][5] == (reason,)


def test_a_warp_with_only_a_blend_in_fades_in_and_stops_with_its_clip(make_rig, warp_assets):
    asset, targets = warp_assets["vault"], vault_targets(1.0, 0.6, 1.0)
    rig = make_rig(blend_in=BLEND, blend_out=0.0)
    warp = rig.play(asset, targets)
    assert warp.effect == 0.0
    rig.run()
    assert rig.warp_frames[0]["effect"] == pytest.approx(1 / 60 / BLEND)
    assert "motionwarp-blend-out" not in rig.names() and rig.names()[-1] == "motionwarp-finished"
    assert_phases_end_on_targets(rig, asset, targets)
