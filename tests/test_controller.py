"""The demo's controller on a stepped clock: ground, steps, falls, walls, and real key events
through Panda3D's button handling (Shift included).

Expected heights, speeds and clearances are computed here from the scene's box numbers, the
contacts file's root motion and plain geometry, not read back from the controller.
"""
import json
import math

import pytest
from panda3d.core import ButtonThrower, KeyboardButton, ModifierButtons, MouseWatcher, VirtualMouse

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.body import BodySettings
from motionwarp_demo.level.scene import Scene

from .conftest import CONTACTS, SAMPLES, run_for, step

DT = 1 / 60
SETTINGS = BodySettings()
CLIPS = json.loads(CONTACTS.read_text())["clips"]


def clip_speed(clip):
    """Ground speed of a looping clip from the contacts file: its root's travel over its duration."""
    x, y, _, _ = CLIPS[clip]["root_end"]
    return math.hypot(x, y) / CLIPS[clip]["duration"]


def make_demo(base, tmp_path, warp_asset_dir, obstacles, spawn=(0, -3, 0), h=0.0):
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    far = box("far away", (30, 30, 0), (1, 1, 1))   # a scene needs an obstacle
    scene.update(obstacles=obstacles + [far], spawn={"pos": list(spawn), "h": h}, autopilot=[])
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    return Demo(base, Scene.load(path), asset_dir=warp_asset_dir)


@pytest.fixture
def world(base, tmp_path, warp_asset_dir):
    made = []

    def build(obstacles, **kwargs):
        made.append(make_demo(base, tmp_path, warp_asset_dir, obstacles, **kwargs))
        return made[-1]
    yield build
    for demo in made:
        demo.destroy()


def effect(demo, clip):
    return demo.actor.getPartBundle("modelRoot").getControlEffect(demo.actor.getAnimControl(clip))


def steered(demo):
    """The demo without its keyboard task: the test sets the controller's direction itself."""
    demo.removeTask("demo-input")
    return demo


def box(name, pos, size, h=0.0):
    return {"name": name, "shape": "box", "pos": list(pos), "size": list(size), "h": h}


def capsule_clearance(feet, obstacle):
    """Horizontal gap between the collision capsule's axis and a box's footprint, or None when
    the capsule (from `step_up` above the feet to the head) is above or below the box."""
    x, y, z = feet
    (bx, by, bz), (w, d, height), h = obstacle["pos"], obstacle["size"], math.radians(obstacle.get("h", 0.0))
    low, high = z + SETTINGS.step_up, z + SETTINGS.height
    if high <= bz or low >= bz + height:
        return None
    # The axis in the box's own frame (turned by -h about its bottom centre).
    dx, dy = x - bx, y - by
    lx, ly = dx * math.cos(h) + dy * math.sin(h), -dx * math.sin(h) + dy * math.cos(h)
    ox, oy = max(abs(lx) - w / 2, 0.0), max(abs(ly) - d / 2, 0.0)
    return math.hypot(ox, oy)


def walk(demo, base, direction, seconds, running=False):
    demo.controller.direction, demo.controller.running = direction, running
    run_for(base, seconds, DT)


def test_stands_on_tops_and_steps_up_and_down_small_heights(base, world):
    from panda3d.core import Vec3
    step = box("step", (0, 0, 0), (2.0, 1.0, 0.25))       # lower than step_up (0.35): walked onto
    top = box("table", (3, 0, 0), (1.5, 1.5, 1.1))        # placed on: stands on its top
    demo = steered(world([step, top]))
    demo.controller.place((0, -1.5, 0), 0)
    walk(demo, base, Vec3(0, 1, 0), 1.1)                  # 1.5 m at 1.4 m/s: onto the step's middle
    pos = demo.actor.getPos()
    assert abs(pos.y) < 0.5 and pos.z == pytest.approx(0.25, abs=0.01)
    walk(demo, base, Vec3(0, 1, 0), 1.0)                  # and down its far side
    assert demo.actor.getY() > 0.8 and demo.actor.getZ() == pytest.approx(0.0, abs=0.01)
    assert demo.controller.landings == []                 # stepped, not fallen
    demo.controller.place((3, 0, 1.3), 0)                  # a little above the top
    run_for(base, 0.2, DT)
    assert demo.actor.getZ() == pytest.approx(1.1, abs=0.01)


def test_walks_off_a_ledge_falls_and_lands(base, world):
    from panda3d.core import Vec3
    ledge = box("ledge", (0, 0, 0), (3.0, 2.0, 1.5))
    demo = steered(world([ledge]))
    demo.controller.place((0, 0.5, 1.5), 0)
    effects = {"fall": 0.0, "land": 0.0}
    demo.controller.direction = Vec3(0, 1, 0)
    for _ in range(150):
        run_for(base, DT, DT)
        for clip in effects:
            effects[clip] = max(effects[clip], effect(demo, clip))
    assert demo.actor.getZ() == pytest.approx(0.0, abs=1e-3) and demo.actor.getY() > 1.0
    (height, where), = demo.controller.landings
    assert height == pytest.approx(1.5, abs=0.01) and where.y > 1.0 + SETTINGS.radius * 0.5
    assert effects["fall"] > 0.9 and effects["land"] > 0.9   # the fall loop and the landing both played


def test_never_ends_inside_an_obstacle_and_slides_along_walls(base, world):
    from panda3d.core import Vec3
    wall = box("wall", (0, 2, 0), (8.0, 0.4, 2.5), h=10.0)
    post = box("post", (2.5, 0.6, 0), (0.5, 0.5, 2.0), h=30.0)
    demo = steered(world([wall, post]))
    demo.controller.place((0, 0, 0), 0)
    heading = Vec3(math.sin(math.radians(35)), math.cos(math.radians(35)), 0)  # into the wall at an angle
    for _ in range(240):
        walk(demo, base, heading, DT, running=True)
        feet = tuple(demo.actor.getPos())
        for obstacle in (wall, post):
            gap = capsule_clearance(feet, obstacle)
            assert gap is None or gap > SETTINGS.radius - 2e-3, (obstacle["name"], feet, gap)
    # It slid along the wall (to +x, past the post it went round) instead of stopping dead.
    assert demo.actor.getX() > 3.0


def test_a_too_steep_rise_is_a_wall_and_a_drop_off_it_a_fall(base, world):
    from panda3d.core import Vec3
    demo = steered(world([box("block", (0, 1.5, 0), (3.0, 1.0, 0.6))]))   # higher than a step: blocks
    demo.controller.place((0, 0, 0), 0)
    walk(demo, base, Vec3(0, 1, 0), 2.0)
    face = 1.0
    assert demo.actor.getZ() == pytest.approx(0.0, abs=1e-3)
    assert face - SETTINGS.radius - 0.05 < demo.actor.getY() <= face - SETTINGS.radius + 1e-3


# -- real key events ----------------------------------------------------------------------
@pytest.fixture
def keyboard(base):
    """ShowBase's window input as setupMouse builds it, fed by a VirtualMouse: the data graph
    turns its presses into button events (with Shift, Control, Alt, Meta as modifiers) and
    into the held-button state a MouseWatcher reports."""
    mouse = base.dataRoot.attachNewNode(VirtualMouse("test-keyboard"))
    mouse.node().setWindowSize(320, 240)
    mouse.node().setMouseOn(True)
    mouse.node().setMousePos(160, 120)
    watcher = mouse.attachNewNode(MouseWatcher("test-watcher"))
    thrower = watcher.attachNewNode(ButtonThrower("test-buttons"))
    modifiers = ModifierButtons()
    for key in (KeyboardButton.shift(), KeyboardButton.control(), KeyboardButton.alt(), KeyboardButton.meta()):
        modifiers.addButton(key)
    watcher.node().setModifierButtons(modifiers)
    thrower.node().setModifierButtons(ModifierButtons(modifiers))
    saved = base.mouseWatcherNode, base.buttonThrowers
    base.mouseWatcherNode, base.buttonThrowers = watcher.node(), [thrower]
    yield mouse.node()
    base.mouseWatcherNode, base.buttonThrowers = saved
    mouse.removeNode()


def test_keys_move_relative_to_the_camera(base, world, keyboard):
    demo = world([], spawn=(0, 0, 0), h=0.0)
    demo.camera.yaw = 90.0                       # the camera looks along -X
    keyboard.pressButton(KeyboardButton.asciiKey("w"))
    run_for(base, 1.5, DT)
    pos = demo.actor.getPos()
    assert pos.x < -1.0 and abs(pos.y) < 0.6      # forward is the camera's forward, not the character's
    assert demo.actor.getH() % 360 == pytest.approx(90.0, abs=2.0)
    keyboard.releaseButton(KeyboardButton.asciiKey("w"))
    keyboard.pressButton(KeyboardButton.asciiKey("s"))   # back: turns around and walks toward the camera
    run_for(base, 2.0, DT)
    assert demo.actor.getH() % 360 == pytest.approx(270.0, abs=2.0) and demo.actor.getX() > pos.x + 0.5
    keyboard.releaseButton(KeyboardButton.asciiKey("s"))
    keyboard.pressButton(KeyboardButton.asciiKey("d"))   # right of a camera looking along -X is +Y
    run_for(base, 1.5, DT)
    assert demo.actor.getH() % 360 == pytest.approx(0.0, abs=2.0) or demo.actor.getH() % 360 > 358.0
    keyboard.releaseButton(KeyboardButton.asciiKey("d"))
    run_for(base, 1.0, DT)
    assert effect(demo, "idle") == pytest.approx(1.0)   # still: idle


def test_shift_w_runs_at_the_run_clips_speed(base, world, keyboard):
    demo = world([], spawn=(0, 0, 0), h=0.0)
    demo.camera.yaw = 0.0
    keyboard.pressButton(KeyboardButton.shift())          # Shift first: Panda3D would send shift-w
    keyboard.pressButton(KeyboardButton.asciiKey("w"))
    run_for(base, 1.5, DT)
    assert effect(demo, "run") == pytest.approx(1.0)
    start = demo.actor.getY()
    run_for(base, 1.4, DT)                                # two run cycles
    assert (demo.actor.getY() - start) / 1.4 == pytest.approx(clip_speed("run"), rel=0.03)
    keyboard.releaseButton(KeyboardButton.shift())        # back to walking, blended
    run_for(base, 0.2, DT)
    blending = effect(demo, "walk"), effect(demo, "run")
    assert 0.0 < blending[0] < 1.0 and 0.0 < blending[1] < 1.0
    run_for(base, 1.0, DT)
    start = demo.actor.getY()
    run_for(base, 2.0, DT)
    assert (demo.actor.getY() - start) / 2.0 == pytest.approx(clip_speed("walk"), rel=0.03)
    keyboard.releaseButton(KeyboardButton.asciiKey("w"))


def test_shift_space_vaults(base, world, keyboard):
    crate = box("crate", (0, 2, 0), (1.2, 0.6, 1.0))
    demo = world([crate], spawn=(0, 0.7, 0), h=0.0)
    run_for(base, 0.1, DT)
    keyboard.pressButton(KeyboardButton.shift())
    keyboard.pressButton(KeyboardButton.space())
    run_for(base, DT, DT)
    assert demo.warper.is_warping and demo.warper.current.asset.clip == "vault"
    keyboard.releaseButton(KeyboardButton.space())
    keyboard.releaseButton(KeyboardButton.shift())
    run_for(base, 3.0, DT)
    assert not demo.warper.is_warping
    assert demo.actor.getY() > 2.3 + SETTINGS.radius and demo.actor.getZ() == pytest.approx(0.0, abs=1e-3)


def test_the_camera_stays_in_front_of_walls(base, world):
    wall = box("wall", (0, -2.0, 0), (6.0, 0.3, 3.0))    # between the character and its camera
    demo = world([wall], spawn=(0, 0, 0), h=0.0)
    demo.camera.update(snap=True)
    wall_front = -2.0 + 0.15
    assert base.camera.getY() > wall_front
    look, wanted = demo.camera.wanted()
    assert wanted.y > wall_front                         # in front of the wall, at the player's pitch
    assert demo.camera.orbit_place(look, demo.camera.pitch).y < -2.0   # the orbit alone: behind the wall
    assert (base.camera.getPos() - look).length() > 1.2   # not in the character


@pytest.mark.parametrize("incline, walkable", [(25.0, True), (40.0, True), (60.0, False)])
def test_walks_up_slopes_up_to_the_limit(base, world, incline, walkable):
    from panda3d.core import Vec3
    from .obstacles import prism
    length = 3.0
    rise = length * math.tan(math.radians(incline))
    # A ramp from y = 0 (height 0) up to y = 3 (height `rise`), then a flat top 2 m deep.
    prism(base.render, "ramp", [(0.0, 0.0), (length + 2.0, 0.0), (length + 2.0, rise), (length, rise)], 4.0)
    demo = steered(world([]))
    demo.controller.place((0, -1.0, 0), 0)
    heights = []
    demo.controller.direction = Vec3(0, 1, 0)
    for _ in range(120):                                  # 2 s at 1.4 m/s: 2.8 m
        run_for(base, DT, DT)
        pos = demo.actor.getPos()
        if 0.0 < pos.y < length:                          # on the ramp: on its surface
            heights.append(pos.z - pos.y * math.tan(math.radians(incline)))
    pos = demo.actor.getPos()
    if walkable:
        assert pos.y > 1.2 and heights and max(abs(e) for e in heights) < 0.01
    else:                                                 # a wall: stays at its foot
        assert pos.y < 0.05 and pos.z == pytest.approx(0.0, abs=1e-3)


def test_dragging_the_mouse_turns_the_camera(base, world, keyboard):
    from panda3d.core import MouseButton
    demo = world([], spawn=(0, 0, 0), h=0.0)
    yaw = demo.camera.yaw
    keyboard.setMousePos(160, 120)
    run_for(base, DT, DT)
    keyboard.pressButton(MouseButton.one())
    run_for(base, DT, DT)
    keyboard.setMousePos(240, 120)                      # a quarter of the window to the right
    run_for(base, DT, DT)
    keyboard.releaseButton(MouseButton.one())
    assert demo.camera.yaw == pytest.approx(yaw - 0.25 * 240.0, abs=1.0)   # DRAG_DEG: 240° per window width


@pytest.mark.parametrize("height, on_top", [(0.8, True), (2.0, False)])
def test_a_warp_cancelled_inside_a_box_leaves_the_character_outside_it(base, world, height, on_top):
    crate = box("crate", (0, 2, 0), (2.0, 1.0, height))
    demo = steered(world([crate]))
    demo.actor.setPos(0, 1.65, 0.4)          # where a cancelled warp can leave it: half into the box
    demo.actor.setH(0)
    demo.controller.body.resume()            # what the controller does when a warp ends
    run_for(base, 1.5, DT)                   # and whatever falling follows
    feet = tuple(demo.actor.getPos())
    gap = capsule_clearance(feet, crate)
    assert gap is None or gap > SETTINGS.radius - 2e-3, (feet, gap)
    if on_top:
        assert feet[2] == pytest.approx(height, abs=0.01)
    else:                                    # moved back out of its face (y = 1.5) and down to the ground
        assert feet[1] <= 1.5 - SETTINGS.radius + 1e-3 and feet[2] == pytest.approx(0.0, abs=1e-3)


def test_a_mantle_starts_with_the_chest_against_the_ledge(base, world):
    from panda3d.core import Vec3
    """Walked into a ledge until the capsule stops it (about its radius, 0.30 m, from the face:
    past the mantle's authored 0.37 m start), the prompt offers the mantle, and Space takes it:
    the character ends standing on top."""
    ledge = box("ledge", (0, 2.0, 0), (4.0, 2.0, 1.5))    # face at y = 1.0
    demo = steered(world([ledge], spawn=(0, -0.5, 0)))
    demo.controller.direction = Vec3(0, 1, 0)
    run_for(base, 2.0, DT)
    face = 1.0
    assert SETTINGS.radius - 0.01 < face - demo.actor.getY() < SETTINGS.radius + SETTINGS.skin + 0.01
    assert demo.prompt.getText().startswith("Space: mantle ledge")
    demo.controller.direction = Vec3(0, 0, 0)
    assert demo.interact()
    run_for(base, 3.0, DT)
    assert not demo.warper.is_warping
    assert demo.actor.getY() > face + SETTINGS.radius and demo.actor.getZ() == pytest.approx(1.5, abs=1e-3)


def test_a_vault_starts_with_the_chest_against_the_crate(base, world):
    """Walked into a crate until the capsule stops it, the vault's approach has almost nothing
    left to cover: the prompt offers the vault, Space takes it, and the character lands past
    the crate's far face on the ground."""
    from panda3d.core import Vec3
    crate = box("crate", (0, 2.0, 0), (2.0, 0.6, 1.0))   # faces at y = 1.7 and 2.3
    demo = steered(world([crate], spawn=(0, -1.5, 0)))
    demo.controller.direction, demo.controller.running = Vec3(0, 1, 0), True
    run_for(base, 2.0, DT)
    near, far = 1.7, 2.3
    assert near - demo.actor.getY() < SETTINGS.radius + SETTINGS.skin + 0.01
    assert demo.prompt.getText().startswith("Space: vault crate")
    demo.controller.direction, demo.controller.running = Vec3(0, 0, 0), False
    assert demo.interact()
    run_for(base, 3.0, DT)
    assert not demo.warper.is_warping
    assert demo.actor.getY() > far + SETTINGS.radius and demo.actor.getZ() == pytest.approx(0.0, abs=1e-3)


@pytest.mark.parametrize("gap", [0.30, 0.33, 0.36, 0.40, 0.45])
def test_a_vault_is_offered_and_accepted_up_close(base, world, gap):
    """From the capsule's stop (0.30 m from the face) to past where the hands would plant
    without moving (0.38 m), the approach phase has almost no ground to cover: it shrinks to
    it instead of being refused, so what the prompt offers, play takes."""
    demo = steered(world([box("crate", (0, 2.0, 0), (2.0, 0.6, 1.0))], spawn=(0, -1.5, 0)))
    demo.controller.place((0, 1.7 - gap, 0), 0)
    step(base, DT)
    assert demo.prompt.getText().startswith("Space: vault crate")
    assert demo.interact()


def test_the_prompt_never_offers_what_the_warper_refuses(base, world):
    """A crate the providers accept but the warper cannot reach from here (a warper that keeps
    the default stretch limit): the prompt gives the warper's reason instead of offering Space."""
    from panda3d.core import Vec3
    demo = steered(world([box("crate", (0, 2.0, 0), (2.0, 0.6, 1.0))], spawn=(0, -0.5, 0)))
    demo.warper.settings.min_stretch = 0.5
    demo.controller.direction = Vec3(0, 1, 0)
    run_for(base, 2.0, DT)
    # the providers share the warper's settings (design 7): they answer its reason themselves
    prompt = demo.prompt.getText()
    assert prompt.startswith("crate: phase 'close_edge' needs ") and "(ratio 0.13, allowed 0.5 to 3)" in prompt


def test_locomotion_fades_out_into_a_vault_and_back_in_after_it(base, world):
    """Walking into a vault and on after it: locomotion keeps what the warp clip leaves of the
    pose (one frame behind: it steers before the warper fades), walk has the Actor again at the
    end, and no joint jumps farther in a frame than the vault's own fastest joint does."""
    from panda3d.core import Vec3
    from .bench.bench_warp_pops import joint_positions, largest_move, peak_joint_speed
    demo = steered(world([box("crate", (0, 2.3, 0), (2.0, 0.6, 1.0))], spawn=(0, -1.0, 0)))
    demo.controller.direction = Vec3(0, 1, 0)
    within = lambda clip: demo.authored_distance.get(clip, demo.skip_distance)   # noqa: E731
    for _ in range(240):
        run_for(base, DT, DT)
        if demo.interact(within=within):
            break
    assert demo.warper.is_warping
    loops = ("idle", "walk", "run", "fall", "land")
    poses, shares = [joint_positions(demo.actor)], []
    while demo.warper.is_warping:
        run_for(base, DT, DT)
        poses.append(joint_positions(demo.actor))
        shares.append((effect(demo, "vault"), sum(effect(demo, clip) for clip in loops)))
    for _ in range(20):
        run_for(base, DT, DT)
        poses.append(joint_positions(demo.actor))
    assert 0.0 < shares[0][0] < 1.0 and shares[0][1] > 0.5, "no cross-fade into the vault"
    assert all(abs(mine + theirs - 1.0) <= DT / demo.controller.locomotion.blend_time + 1e-6 for mine, theirs in shares)
    assert any(0.0 < mine < 1.0 and theirs > 0.0 for mine, theirs in shares[len(shares) // 2:]), "no fade back"
    assert effect(demo, "walk") == pytest.approx(1.0) and effect(demo, "vault") == 0.0
    peak = peak_joint_speed("vault") * DT
    jumps = [largest_move(a, b) for a, b in zip(poses, poses[1:])]   # jumps[i]: into frame i of `shares`
    fading = [i for i, (mine, _) in enumerate(shares) if mine < 1.0]   # (inside, a rate above 1 may beat the peak)
    assert max(jumps[i] for i in fading + list(range(len(shares), len(jumps)))) < peak
