"""Root motion: extraction, stripping once per shared bundle, and a frame-rate-independent driver."""
import json
import math

import numpy as np
import pytest
from panda3d.core import PartBundle, Point3

from motionwarp import LoadError, RootMotionDriver, load_actor
from motionwarp.base.config import MotionWarpSettings
from motionwarp.animation.actor_clips import clip_control
from motionwarp.animation.rootmotion import character_base, extract, find_channel, is_closed_loop, skeleton_change

from .conftest import ASSETS, MANNEQUIN, run_for, step
from .gltf_samples import two_bone_quad

CONTACTS = json.loads((ASSETS / "mannequin.contacts.json").read_text())


@pytest.fixture
def make_walker(base):
    """Make Actors with a RootMotionDriver; everything is cleaned up after the test."""
    made = []

    def make(path=MANNEQUIN):
        actor = load_actor(path)
        actor.reparentTo(base.render)
        driver = RootMotionDriver(actor, taskmgr=base.taskMgr)
        made.append((actor, driver))
        return actor, driver
    yield make
    for actor, driver in made:
        driver.destroy()
        actor.cleanup()
        actor.removeNode()


def walk_for(base, make_walker, seconds, dt, hitch_at=None, rate=1.0):
    actor, driver = make_walker()
    driver.loop("walk")
    actor.setPlayRate(rate, "walk")
    step(base, dt)  # the frame on which the loop starts: no motion yet
    elapsed = 0.0
    while elapsed < seconds - 1e-9:
        frame = 0.25 if hitch_at is not None and abs(elapsed - hitch_at) < dt / 2 else dt
        frame = min(frame, seconds - elapsed)
        step(base, frame)
        elapsed += frame
    return actor, driver


def expected_walk(driver, seconds):
    """Where 'seconds' of looping walk take the root, straight from the extracted track."""
    track = driver.tracks["walk"]
    first, last = driver.loop_range("walk")
    cycle = last + 1 - first
    frames = seconds * track.fps
    cycles, rest = divmod(frames, cycle)
    return cycles * track.position(cycle) + track.position(rest)


def test_walk_clip_has_the_authored_speed(base, make_walker):
    _, driver = make_walker()
    track = driver.tracks["walk"]
    speed = track.positions[-1][1] / track.duration
    assert 1.2 < speed < 1.6
    np.testing.assert_allclose(track.positions[-1][:3], CONTACTS["clips"]["walk"]["root_end"][:3], atol=1e-3)


@pytest.mark.parametrize("fps, hitch_at", [(20, None), (60, None), (240, None), (60, 1.5)])
def test_walk_distance_does_not_depend_on_frame_rate(base, make_walker, fps, hitch_at):
    actor, driver = walk_for(base, make_walker, 3.0, 1.0 / fps, hitch_at)
    expected = expected_walk(driver, 3.0)
    assert (actor.getPos() - Point3(*expected)).length() < 1e-3
    assert expected[1] > 3.0  # several loops were crossed (3 s at ~1.4 m/s)


def test_loop_crossing_several_times_keeps_going_forward(base, make_walker):
    actor, driver = make_walker()
    driver.loop("walk")
    step(base, 1 / 60)
    ys = []
    for _ in range(60 * 4):
        step(base, 1 / 60)
        ys.append(actor.getY())
    assert all(b >= a - 1e-6 for a, b in zip(ys, ys[1:])), "walk root motion went backwards at a loop seam"
    assert ys[-1] == pytest.approx(expected_walk(driver, 4.0)[1], abs=1e-3)


def test_blend_half_walk_half_idle_moves_half_as_far(base, make_walker):
    actor, driver = make_walker()
    actor.enableBlend()
    driver.loop("walk")
    driver.loop("idle")
    actor.setControlEffect("walk", 0.5)
    actor.setControlEffect("idle", 0.5)
    step(base, 1 / 60)
    run_for(base, 2.0, 1 / 60)
    assert actor.getY() == pytest.approx(expected_walk(driver, 2.0)[1] / 2, abs=1e-3)


def test_play_rate_two_covers_the_same_ground_in_half_the_time(base, make_walker):
    fast, _ = walk_for(base, make_walker, 1.5, 1 / 60, rate=2.0)
    fast_end = fast.getPos()
    slow, _ = walk_for(base, make_walker, 3.0, 1 / 60, rate=1.0)
    assert (fast_end - slow.getPos()).length() < 1e-3


def test_non_looping_clip_stops_moving_when_it_ends(base, make_walker):
    actor, driver = make_walker()
    driver.play("vault")
    step(base, 1 / 60)
    run_for(base, driver.tracks["vault"].duration + 0.5, 1 / 60)
    end = actor.getPos()
    run_for(base, 1.0, 1 / 60)
    assert (actor.getPos() - end).length() == 0.0
    np.testing.assert_allclose(list(end), CONTACTS["clips"]["vault"]["root_end"][:3], atol=2e-3)


def test_two_actors_of_one_model_both_move_and_the_clip_is_stripped_once(base, make_walker):
    first, first_driver = make_walker()
    second, second_driver = make_walker()
    assert first_driver.tracks["walk"] is second_driver.tracks["walk"]
    second.setX(2.0)
    for driver in (first_driver, second_driver):
        driver.loop("walk")
    step(base, 1 / 60)
    run_for(base, 2.0, 1 / 60)
    assert first.getY() == pytest.approx(second.getY(), abs=1e-6)
    assert first.getY() == pytest.approx(expected_walk(first_driver, 2.0)[1], abs=1e-3)
    channel = find_channel(clip_control(first, "walk").getAnim(), "root")
    assert list(channel.getTable("y")) == [0.0]  # the pose plays in place


def test_a_second_actor_whose_skeleton_sits_otherwise_is_refused_not_replayed_turned(base, tmp_path):
    """The shared track is in the first Actor's skeleton frame: an Actor of the same file turned half
    round by its root transform (a character file's turn) would walk backwards on it."""
    from panda3d.core import LMatrix4f, LVector3f
    path = two_bone_quad(tmp_path / "walker.glb", {"walk": [("root", "translation", [0.0, 1.0], [[0, 0, 0], [0, 1, 0]])]})
    first, turned, alike = load_actor(path), load_actor(path), load_actor(path)
    bundle = turned.getPartBundle("modelRoot")
    bundle.setRootXform(bundle.getRootXform() * LMatrix4f.rotateMat(180, LVector3f.up()))
    drivers = [RootMotionDriver(first, taskmgr=base.taskMgr)]
    try:
        with pytest.raises(LoadError, match="already stripped for an Actor whose skeleton sits otherwise"):
            RootMotionDriver(turned, taskmgr=base.taskMgr)
        drivers.append(RootMotionDriver(alike, taskmgr=base.taskMgr))   # placed as the first: shares the track
        assert drivers[1].tracks["walk"] is drivers[0].tracks["walk"]
    finally:
        for driver in drivers:
            driver.destroy()
        for actor in (first, turned, alike):
            actor.cleanup()


def test_root_heading_turns_the_actor(base, make_walker, tmp_path):
    quarter = [math.cos(math.radians(45)), 0, 0, math.sin(math.radians(45))]
    path = two_bone_quad(tmp_path / "turn.glb", {"turn": [
        ("root", "translation", [0.0, 1.0], [[0, 0, 0], [0, 2.0, 0]]),
        ("root", "rotation", [0.0, 1.0], [[1, 0, 0, 0], quarter])]})
    actor, driver = make_walker(path)
    actor.setH(90)
    driver.play("turn")
    step(base, 1 / 60)
    run_for(base, 1.5, 1 / 60)
    # The clip goes 2 m along its own +Y; the actor faced world -X, so it ends at x = -2.
    assert (actor.getH() - 180.0 + 180.0) % 360.0 - 180.0 == pytest.approx(0.0, abs=1e-3)
    assert (actor.getPos() - Point3(-2, 0, 0)).length() < 1e-4


def test_projected_mode_moves_by_the_hips_ground_projection(base, tmp_path):
    """A mocap-style skeleton: the top joint is the hips, carrying travel plus a height bob."""
    path = two_bone_quad(tmp_path / "mocap.glb", {"stride": [
        ("root", "translation", [0.0, 0.5, 1.0], [[0, 0, 0.95], [0.1, 0.7, 0.85], [0.2, 1.4, 0.95]])]})
    actor = load_actor(path)
    actor.reparentTo(base.render)
    driver = RootMotionDriver(actor, root_joint="root", root_mode="projected", taskmgr=base.taskMgr)
    try:
        channel = find_channel(clip_control(actor, "stride").getAnim(), "root")
        assert list(channel.getTable("x")) == [0.0] and list(channel.getTable("y")) == [0.0]
        assert len(channel.getTable("z")) > 1  # the hips keep their height in the pose
        driver.play("stride")
        step(base, 1 / 60)
        run_for(base, 1.5, 1 / 60)
        assert (actor.getPos() - Point3(0.2, 1.4, 0.0)).length() < 1e-4
    finally:
        driver.destroy()
        actor.cleanup()
        actor.removeNode()


def test_frame_motion_turns_and_moves_by_the_authored_keys_between_clip_times(base, tmp_path):
    """The clip's keys: the root goes 2 m along model +Y and turns 90 degrees about Z over 1 s,
    both linear in time; a frame's motion is that seen from the previous frame's root."""
    quarter = [math.cos(math.radians(45)), 0, 0, math.sin(math.radians(45))]
    path = two_bone_quad(tmp_path / "turn.glb", {"turn": [
        ("root", "translation", [0.0, 1.0], [[0, 0, 0], [0, 2.0, 0]]),
        ("root", "rotation", [0.0, 1.0], [[1, 0, 0, 0], quarter])]})
    actor = load_actor(path)
    driver = RootMotionDriver(actor, task=False)
    control = clip_control(actor, "turn")
    driver.play("turn")
    driver.frame_motion()
    try:
        for frames in (1, 7, 3):
            before = control.getFullFframe() / control.getFrameRate()
            for _ in range(frames):
                step(base, 1 / 60)
            after = control.getFullFframe() / control.getFrameRate()
            motion = driver.frame_motion()
            turned = math.radians(90.0 * before)
            forward = 2.0 * (after - before)   # along model +Y, seen from a root turned by `turned`
            assert motion.h == pytest.approx(90.0 * (after - before), abs=1e-4)
            assert motion.pos == pytest.approx((forward * math.sin(turned), forward * math.cos(turned), 0.0), abs=1e-5)
    finally:
        driver.destroy()
        actor.cleanup()


def test_destroying_a_driver_twice_removes_its_task_once(base, make_walker):
    actor, driver = make_walker()
    named = [task.name for task in base.taskMgr.getTasks() if task.name.startswith("motionwarp-rootmotion")]
    driver.destroy()
    driver.destroy()
    left = [task.name for task in base.taskMgr.getTasks() if task.name.startswith("motionwarp-rootmotion")]
    assert len(left) == len(named) - 1
    assert driver.tracks["walk"].clip == "walk"


@pytest.mark.parametrize("rate", [0.5, 1.0, 2.0])
def test_long_frames_across_loop_seams_cover_the_clip_time_they_played(base, make_walker, rate):
    actor, driver = make_walker()
    driver.loop("walk")
    actor.setPlayRate(rate, "walk")
    # ShowBase ticks the clock at the end of a step: a task sees the time the step before left.
    # The driver's updates therefore see 1/60 s, then the long frames, in the steps after each.
    frames = [1 / 60, 1 / 60, 0.25, 0.9, 1.3, 1 / 60, 0.55, 2.2]   # the long ones cross one to four seams
    for frame in frames + [1 / 60]:
        step(base, frame)
    expected = expected_walk(driver, sum(frames) * rate)
    assert (actor.getPos() - Point3(*expected)).length() < 1e-3


def test_a_clip_replayed_from_the_top_behind_the_drivers_back_travels_nothing_back(base, make_walker):
    actor, driver = make_walker()
    driver.play("vault")
    step(base, 1 / 60)
    run_for(base, 0.5, 1 / 60)
    before = actor.getPos()
    assert before.y > 0.1
    actor.play("vault")   # clip time jumps back to 0
    step(base, 1 / 60)
    assert (actor.getX(), actor.getY()) == (before.x, before.y)


def test_only_a_closed_loop_leaves_out_its_last_frame_and_loop_restarts(base, make_walker):
    actor, driver = make_walker()
    # The mannequin's walk repeats its first pose as its last frame; its vault ends elsewhere.
    assert driver.loop_range("walk") == (0, clip_control(actor, "walk").getNumFrames() - 2)
    assert driver.loop_range("vault") == (0, clip_control(actor, "vault").getNumFrames() - 1)
    driver.loop("walk")
    step(base, 1 / 60)
    run_for(base, 0.3, 1 / 60)
    assert clip_control(actor, "walk").getFrame() > 5
    driver.loop("walk")
    assert clip_control(actor, "walk").getFrame() == 0


def test_a_walk_played_backwards_across_seams_walks_back_the_clip_time_it_played(base, make_walker):
    actor, driver = make_walker()
    driver.loop("walk")
    actor.setPlayRate(-1.0, "walk")
    frames = [1 / 60, 1 / 60, 0.4, 1 / 60, 1.7, 0.2]   # as in the seam test above: the driver sees them one step late
    for frame in frames + [1 / 60]:
        step(base, frame)
    track = driver.tracks["walk"]
    cycle = driver.loop_range("walk")[1] + 1
    cycles, rest = divmod(sum(frames) * track.fps, cycle)
    # Backwards from frame 0: `cycles` whole cycles back, then from the seam (frame `cycle`) down to `cycle - rest`.
    expected = -cycles * track.position(cycle) + track.position(cycle - rest) - track.position(cycle)
    assert (actor.getPos() - Point3(*expected)).length() < 1e-3
    assert expected[1] < -2.0


def test_grounded_clips_lift_the_actor_by_their_normalised_blend_of_heights(base, tmp_path):
    """Two clips in place that rise and come back down (grounded): their keys give the heights."""
    keys = [0.0, 0.5, 1.0]
    path = two_bone_quad(tmp_path / "bobs.glb", {
        "bob": [("root", "translation", keys, [[0, 0, 0], [0, 0, 0.2], [0, 0, 0]])],
        "hop": [("root", "translation", keys, [[0, 0, 0], [0, 0, 0.5], [0, 0, 0]])]})
    actor = load_actor(path)
    actor.enableBlend()
    driver = RootMotionDriver(actor, task=False)
    try:
        driver.loop("bob")
        driver.loop("hop")
        actor.setControlEffect("bob", 0.3)
        actor.setControlEffect("hop", 0.1)
        control = clip_control(actor, "bob")
        for _ in range(40):
            step(base, 1 / 60)
            driver.update()
            t = control.getFullFframe() / control.getFrameRate()
            rise = min(t, 1.0 - t) / 0.5   # 0 at the ends, 1 at the middle key
            # docs/design.md 3: the heights above frame 0 weighted by effect and, as Panda3D
            # normalises the pose, divided by the effects' sum.
            assert actor.getZ() == pytest.approx((0.3 * 0.2 * rise + 0.1 * 0.5 * rise) / 0.4, abs=1e-5)
        assert t > 0.6
    finally:
        driver.destroy()
        actor.cleanup()


def test_two_climbing_clips_blended_move_by_the_blend_of_their_tracks_on_every_axis(base):
    """Mantles rise (not grounded): with constant effects, the blended frames add up to the
    effect-weighted, normalised blend of the two clips' motion from frame 0 (no heading here)."""
    actor = load_actor(MANNEQUIN)
    actor.enableBlend()
    driver = RootMotionDriver(actor, task=False)
    try:
        for clip, effect in (("mantle", 0.25), ("mantle_high", 0.5)):
            driver.play(clip)
            actor.setControlEffect(clip, effect)
        control = clip_control(actor, "mantle")
        while control.getFullFframe() < 45:
            step(base, 1 / 60)
            driver.update()
        frame = control.getFullFframe()
        low, high = driver.tracks["mantle"], driver.tracks["mantle_high"]
        expected = (0.25 * low.position(frame) + 0.5 * high.position(frame)) / 0.75
        assert (actor.getPos() - Point3(*expected)).length() < 1e-4
        assert min(expected[1:]) > 0.3   # it went forward and up
    finally:
        driver.destroy()
        actor.cleanup()


def test_a_blended_clip_restarting_does_not_stop_the_others_moving(base):
    actor = load_actor(MANNEQUIN)
    actor.enableBlend()
    driver = RootMotionDriver(actor, task=False, clips=["land", "walk"])   # the land is read first
    try:
        driver.loop("walk")
        driver.play("land")
        for clip in ("walk", "land"):
            actor.setControlEffect(clip, 0.5)
        for _ in range(10):
            step(base, 1 / 60)
            driver.update()
        before = actor.getY()
        actor.play("land")      # from the top: the land moves nothing this frame, the walk does
        step(base, 1 / 60)
        driver.update()
        walk = driver.tracks["walk"]
        assert actor.getY() - before > 0.5 * (walk.position(1)[1] - walk.position(0)[1]) / 2
    finally:
        driver.destroy()
        actor.cleanup()


@pytest.mark.parametrize("scale", [1.0, 0.01, 3.0])
def test_a_clip_speed_walks_straight_ahead_at_that_speed(base, tmp_path, scale):
    """The speed is metres per second in the world, on an actor of any scale (docs/design.md 3)."""
    actor = load_actor(MANNEQUIN)
    actor.setH(90)    # facing world -X
    actor.setScale(scale)
    driver = RootMotionDriver(actor, task=False, clip_speeds={"idle": 2.0})
    try:
        control = clip_control(actor, "idle")
        driver.loop("idle")   # an idle stands still: the speed alone moves it
        for _ in range(150):
            step(base, 1 / 60)
            driver.update()
        seconds = 150 / 60
        assert (actor.getPos() - Point3(-2.0 * seconds, 0, 0)).length() < 1e-4
        assert control.getFrameRate() * seconds > driver.loop_range("idle")[1]   # a seam was crossed
        assert driver.tracks["idle"].clip == "idle" and driver.tracks["idle"].num_frames == control.getNumFrames()
    finally:
        driver.destroy()
        actor.cleanup()
    other = load_actor(MANNEQUIN)
    with pytest.raises(LoadError) as caught:
        RootMotionDriver(other, task=False, clip_speeds={"glide": 1.0})
    assert str(caught.value) == (f"clip 'glide' is not driven by this 'mannequin' driver; "
                                 f"it drives: {', '.join(sorted(other.getAnimNames()))}")


def test_a_driver_without_a_task_manager_runs_in_showbases_at_the_settings_sort(base):
    actor = load_actor(MANNEQUIN)
    before = {task.id for task in base.taskMgr.getTasks()}
    first, second = RootMotionDriver(actor), RootMotionDriver(load_actor(MANNEQUIN))
    try:
        added = [task for task in base.taskMgr.getTasks() if task.id not in before]
        assert len(added) == 2 and len({task.name for task in added}) == 2   # one task each, told apart
        assert {task.sort for task in added} == {MotionWarpSettings().task_sort}
        second.destroy()
        assert [task.id for task in base.taskMgr.getTasks() if task.id not in before] == [added[0].id]
    finally:
        first.destroy()
        second.destroy()


def test_a_clip_started_on_the_actor_is_followed_from_the_first_update(base):
    actor = load_actor(MANNEQUIN)
    driver = RootMotionDriver(actor, task=False)
    try:
        actor.loop("walk")   # not through the driver
        step(base, 1 / 60)
        driver.update()      # the first update: where the clip is now is where following starts
        start = clip_control(actor, "walk").getFullFframe()
        for _ in range(20):
            step(base, 1 / 60)
            driver.update()
        walk = driver.tracks["walk"]
        end = clip_control(actor, "walk").getFullFframe()
        assert actor.getY() == pytest.approx(walk.position(end)[1] - walk.position(start)[1], abs=1e-5)
        assert actor.getY() > 0.4   # 20 frames at 60 fps of a 1.4 m/s walk
    finally:
        driver.destroy()
        actor.cleanup()


@pytest.mark.parametrize("blend_type", [PartBundle.BT_normalized_linear, PartBundle.BT_linear])
def test_two_turning_clips_blend_their_frame_motions_like_panda3d_blends_poses(base, tmp_path, blend_type):
    """Keys, linear over 1 s: "turn" goes 2 m along +Y turning 90 degrees left, "veer" 1 m along +X
    turning 30 degrees right. A frame's motion is each clip's, seen from its own root at the frame's
    start, weighted by effect and, for normalised blending only, divided by the effects' sum."""
    def half_turn(degrees):
        return [math.cos(math.radians(degrees / 2)), 0, 0, math.sin(math.radians(degrees / 2))]
    path = two_bone_quad(tmp_path / "turns.glb", {
        "turn": [("root", "translation", [0.0, 1.0], [[0, 0, 0], [0, 2.0, 0]]),
                 ("root", "rotation", [0.0, 1.0], [[1, 0, 0, 0], half_turn(90)])],
        "veer": [("root", "translation", [0.0, 1.0], [[0, 0, 0], [1.0, 0, 0]]),
                 ("root", "rotation", [0.0, 1.0], [[1, 0, 0, 0], half_turn(-30)])]})
    keys = {"turn": ((0.0, 2.0), 90.0), "veer": ((1.0, 0.0), -30.0)}   # per second: (x, y), heading
    effects = {"turn": 0.25, "veer": 0.5}
    actor = load_actor(path)
    actor.setBlend(animBlend=True, blendType=blend_type)
    driver = RootMotionDriver(actor, task=False)
    try:
        for clip, effect in effects.items():
            driver.play(clip)
            actor.setControlEffect(clip, effect)
        control = clip_control(actor, "turn")
        driver.frame_motion()
        for _ in range(20):
            t0 = control.getFullFframe() / control.getFrameRate()
            step(base, 1 / 60)
            t1 = control.getFullFframe() / control.getFrameRate()
            motion = driver.frame_motion()
            x = y = h = 0.0
            for clip, effect in effects.items():
                (vx, vy), turn = keys[clip]
                dx, dy, c, s = vx * (t1 - t0), vy * (t1 - t0), math.cos(math.radians(turn * t0)), math.sin(math.radians(turn * t0))
                x, y, h = x + effect * (c * dx + s * dy), y + effect * (c * dy - s * dx), h + effect * turn * (t1 - t0)
            total = sum(effects.values()) if blend_type == PartBundle.BT_normalized_linear else 1.0
            assert motion.pos == pytest.approx((x / total, y / total, 0.0), abs=1e-5)
            assert motion.h == pytest.approx(h / total, abs=1e-4)
        assert t1 > 0.3
    finally:
        driver.destroy()
        actor.cleanup()


def test_a_played_clip_over_a_frame_longer_than_its_rest_stops_where_it_ends(base, make_walker):
    actor, driver = make_walker()
    driver.play("vault")
    for _ in range(21):      # to frame 10 (the driver sees each step one step late)
        step(base, 1 / 60)
    step(base, 4.0)          # a hitch of 120 clip frames: far past the last one (69)
    step(base, 1 / 60)
    track = driver.tracks["vault"]
    assert clip_control(actor, "vault").getFullFframe() >= track.num_frames - 1   # Panda3D holds it there
    assert (actor.getPos() - Point3(*track.position(track.num_frames - 1))).length() < 1e-4


def test_a_cycle_that_travels_is_closed_an_ending_elsewhere_is_not(base, tmp_path):
    """Keys: "stride" travels 2 m and turns 90 degrees while its bone bends and comes back (the body's
    pose repeats); "reach" travels the same but ends with the bone bent. On untouched clips, the
    track's motion is taken off the last frame; once stripped, the poses compare as they are."""
    bend = [math.cos(math.radians(60)), math.sin(math.radians(60)), 0, 0]   # 120 degrees about X
    travel = [("root", "translation", [0.0, 1.0], [[0, 0, 0], [0, 2.0, 0]]),
              ("root", "rotation", [0.0, 1.0], [[1, 0, 0, 0], [math.cos(math.radians(45)), 0, 0, math.sin(math.radians(45))]])]
    path = two_bone_quad(tmp_path / "cycles.glb", {
        "stride": travel + [("bone", "rotation", [0.0, 0.5, 1.0], [[1, 0, 0, 0], bend, [1, 0, 0, 0]])],
        "reach": travel + [("bone", "rotation", [0.0, 0.5, 1.0], [[1, 0, 0, 0], bend, bend])]})
    actor = load_actor(path)
    base_xform = character_base(actor)
    for clip, closed in (("stride", True), ("reach", False)):
        bundle = clip_control(actor, clip).getAnim()
        track = extract(bundle, "root", "bone", clip=clip, base=base_xform)
        assert is_closed_loop(bundle, "root", track=track, base=base_xform) is closed
        assert is_closed_loop(bundle, "root", base=base_xform) is False   # untouched, the root's travel counts
    driver = RootMotionDriver(actor, task=False)
    assert driver.loop_range("stride") == (0, driver.tracks["stride"].num_frames - 2)
    assert driver.loop_range("reach") == (0, driver.tracks["reach"].num_frames - 1)
    driver.destroy()
    actor.cleanup()


@pytest.mark.parametrize("joint", ["hips", "foot_l", "hand_r"])
def test_a_deep_joints_model_matrices_are_where_panda3d_poses_it(base, joint):
    """joint_model_matrices composes every ancestor's channel from the top down: each frame's
    position is where Panda3D's own pose of that frame puts the exposed joint (the feet and hands
    sit under four or more animated joints; composed bottom-up they were 2 m off)."""
    from motionwarp.animation.rootmotion import joint_model_matrices
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    anim = clip_control(actor, "vault").getAnim()
    model, parent = joint_model_matrices(anim, joint, character_base(actor))
    exposed = actor.exposeJoint(None, "modelRoot", joint)
    try:
        for frame in range(0, anim.getNumFrames(), 4):
            actor.pose("vault", frame)
            actor.update(force=True)
            assert np.allclose(model[frame, 3, :3], tuple(exposed.getPos(actor)), atol=1e-5), frame
    finally:
        actor.cleanup()
        actor.removeNode()


def test_a_skeleton_change_is_none_for_one_that_sits_alike_and_the_turn_between_two_that_do_not():
    """`skeleton_change(model, actor)`: None when the two `character_base` matrices place the skeleton alike
    (within 1e-6); else the row-vector matrix taking a point of the model file's frame into the Actor's: a
    skeleton turned 90 degrees about up on top of a Y-up armature's turn upright takes (1, 0, 0) to (0, 1, 0)."""
    upright = np.array([[1.0, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]])   # a Y-up armature stood up
    turn = np.array([[0.0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])      # 90 degrees about z, row vectors
    assert skeleton_change(upright, upright + 1e-8) is None
    change = skeleton_change(upright, upright @ turn)
    assert (change.xformPoint(Point3(1, 0, 0)) - Point3(0, 1, 0)).length() < 1e-6
    assert (change.xformPoint(Point3(0.1, 0.2, 0.3)) - Point3(-0.2, 0.1, 0.3)).length() < 1e-6
