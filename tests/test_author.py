"""`python -m motionwarp author` (docs/design.md 12.1): warp assets proposed from a clip's own contacts,
checked against the generator's numbers (tests/biped_samples.py) and the mannequin's ground truth,
and played through the providers and the warper."""
import json

import numpy as np
import pytest
from panda3d.core import Point3

from motionwarp import Interaction, JumpProvider, MotionWarper, SceneProbe, TraversalProvider, WarpAsset, load_actor
from motionwarp.tools import author
from motionwarp.tools.inspector import Model

from . import biped_samples as biped
from .conftest import CONTACTS, MANNEQUIN
from .marker_rigs import read_at_phase_ends
from .obstacles import box_profile, level, prism
from .test_inspect import run_inspect, run_tool, tool_in_process
from .warp_helpers import WarpRun

TRUTH = json.loads(CONTACTS.read_text())["clips"]
FRAME = 1.0 / 30


def run_author(*args):
    return run_tool("author", *args)


def flight_frames(clip, seconds):
    """(the last frame both feet rest before the flight, the first they rest again after it), in seconds, by
    design 3.2's rule on the generator's own foot points at its 30 fps: a foot is planted when the slower of
    its steps to the previous and the next frame is under 0.1 times the standing height per second and it is
    within 1% of that height of where it stands (at the apex it is slow, not low; feet only translate in a
    jump: the ankle moves as its toes do)."""
    height = biped.HIPS + biped.HEAD_ABOVE_HIPS - biped.TOE   # the rest pose: toes to head
    frames = int(round(seconds * biped.FPS)) + 1
    ankles = np.array([[biped.pose(clip, f / biped.FPS)["feet"][side] for side in "lr"] for f in range(frames)])
    steps = np.linalg.norm(np.diff(ankles, axis=0), axis=2).max(axis=1) * biped.FPS
    slower = np.minimum(np.concatenate([[steps[0]], steps]), np.concatenate([steps, [steps[-1]]]))
    low = (ankles[:, :, 2] <= biped.ANKLE + 0.01 * height).all(axis=1)
    resting = (slower < 0.1 * height) & low
    lift_off = int(np.argmin(resting))                           # the first frame in the air
    touch_down = lift_off + int(np.argmax(resting[lift_off:]))   # the first at rest again
    assert 0 < lift_off < touch_down < frames - 1 and not resting[lift_off:touch_down].any()
    return (lift_off - 1) / biped.FPS, touch_down / biped.FPS


@pytest.fixture(scope="module")
def bipeds(tmp_path_factory):
    """A metre biped facing +Y, and a centimetre one facing -Y in a Y-up armature."""
    folder = tmp_path_factory.mktemp("author")
    return {name: Model(biped.write_biped(folder / f"{name}.glb", *variant))
            for name, variant in (("metre", ("+Y", "m", "z")), ("centimetre", ("-Y", "cm", "y")))}


@pytest.mark.parametrize("which", ["metre", "centimetre"])
def test_a_vault_ends_its_phases_at_the_plant_and_the_landing(bipeds, which, tmp_path):
    """The close edge is where the hands plant (VAULT_EDGE ahead, VAULT_HEIGHT up), met when they plant;
    the far edge when the feet come down below the top; the landing when the feet land; t_offsets in
    metres in the frame facing +Y, either rig."""
    asset = author.write(bipeds[which], "Vault", "vault", tmp_path / "vault.warp.json")
    close, far, landing = asset.phases
    # the far edge: the first frame after the apex at which the toes are below the hands' plant height
    toes = [min(p[2] for p in biped.pose("Vault", f * FRAME)["feet"].values()) + biped.TOE - biped.ANKLE
            for f in range(int(biped.VAULT_LENGTH * 30) + 1)]
    apex = int(np.argmax(toes))
    over = next(f for f in range(apex, len(toes)) if toes[f] < biped.VAULT_HEIGHT) * FRAME
    assert close.start == 0.0 and abs(close.end - biped.VAULT_PLANT) <= 2 * FRAME
    assert abs(far.end - over) <= 2 * FRAME and abs(landing.end - biped.VAULT_LAND) <= 2 * FRAME
    root_y = biped.VAULT_TRAVEL * biped._smooth(close.end / biped.VAULT_LENGTH)
    assert close.t_offset == pytest.approx((0.0, root_y - biped.VAULT_EDGE, -biped.VAULT_HEIGHT), abs=2e-3)
    # what it clears: the hands' plant height, LOW to HIGH times
    assert asset.traversal.height == pytest.approx((author.LOW * biped.VAULT_HEIGHT, author.HIGH * biped.VAULT_HEIGHT),
                                                   abs=2e-3)
    hands = [c for c in asset.contacts if c.joint.startswith("hand")]
    assert {c.joint for c in hands} == {"hand.l", "hand.r"} and all(c.phase == "close_edge" for c in hands)
    # a hand's offset from the close edge target: its side (the target is the hands' middle)
    assert sorted(round(c.offset[0], 3) for c in hands) == [-0.25, 0.25]


@pytest.mark.parametrize("which", ["metre", "centimetre"])
def test_a_jump_in_place_is_warped_only_in_the_air(bipeds, which, tmp_path):
    asset = author.write(bipeds[which], "Jump", "jump_over", tmp_path / "jump.warp.json")
    close, far, landing = asset.phases
    take_off, touch_down = flight_frames("Jump", biped.JUMP_LENGTH)
    assert close.start == pytest.approx(take_off, abs=1e-9) and landing.end == pytest.approx(touch_down, abs=1e-9)
    assert close.end == far.start and far.end == landing.start
    # the apex: the first frame at which the toes are within 5% of their highest over the ground
    toes = [biped.TOE + min(p[2] for p in biped.pose("Jump", f * FRAME)["feet"].values()) - biped.ANKLE
            for f in range(int(biped.JUMP_LENGTH * 30) + 1)]
    apex = next(f for f, height in enumerate(toes) if height >= 0.95 * max(toes)) * FRAME
    assert close.end == pytest.approx(apex, abs=1e-3)
    # over the obstacle at the apex: the soles' height then (the toes at the lift over their rest height)
    apex_lift = biped.LIFT * np.sin(np.pi * (close.end - biped.TAKE_OFF) / (biped.TOUCH_DOWN - biped.TAKE_OFF))
    assert -close.t_offset[2] == pytest.approx(biped.TOE + apex_lift, abs=0.01)
    # coming down, the root is a landing's length past the far edge: the capsule (0.3 m) and clearance
    # (0.04 m) and a quarter of the skeleton's height (the root joint on the ground to the head joint)
    height = biped.HIPS + biped.HEAD_ABOVE_HIPS
    assert far.t_offset[1] == pytest.approx(0.34 + 0.25 * height, abs=2e-3)
    assert asset.traversal.kind == "jump_over"


@pytest.mark.parametrize("fps", [30, 144])
def test_a_jump_onto_takes_off_then_lands_on_the_top_clear_of_its_edge(base, bipeds, fps, tmp_path):
    """Two phases (design 5.1's jump_onto): take-off as the feet leave the ground, landing as they plant
    again. Played through JumpProvider onto the test's own 0.4 m ledge whose face is 1.5 m ahead: the
    root takes off on the ground with the capsule clear of the face and lands on the top a capsule
    radius plus clearance (0.3 + 0.04 m, design 7) past the edge; both ankles on the top, past the
    edge by more than a tenth of the skeleton's height, read from the Actor's joints."""
    path = tmp_path / "onto.warp.json"
    author.write(bipeds["metre"], "Jump", "jump_onto", path)
    asset = WarpAsset.load(path)
    take_off, landing = asset.phases
    assert asset.traversal.kind == "jump_onto" and (take_off.name, landing.name) == ("take_off", "landing")
    lift_off, touch_down = flight_frames("Jump", biped.JUMP_LENGTH)   # exact: a frame late is a frame in the air
    assert take_off.start == 0.0 and take_off.end == pytest.approx(lift_off, abs=1e-9)
    assert landing.start == take_off.end and landing.end == pytest.approx(touch_down, abs=1e-9)
    # what it clears: the soles' apex over the ground, LOW to HIGH times (0.4 m lies within)
    apex = biped.TOE + biped.LIFT
    assert asset.traversal.height == pytest.approx((author.LOW * apex, author.HIGH * apex), abs=0.01)
    face, top, past = 1.5, 0.4, 0.3 + 0.04
    # the top must hold where the clip ends: in place, the root stays where it lands, `past` onto it
    assert asset.traversal.depth[0] == pytest.approx(past, abs=1e-3)
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    prism(root, "ledge", box_profile(3.0, top), 6.0, pos=(0, face + 1.5, 0))
    found = JumpProvider(SceneProbe.from_geometry(root), [asset], reach=3.0).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Interaction) and found.kind == "jump_onto", found
    actor = load_actor(bipeds["metre"].path)
    actor.reparentTo(base.render)
    ankles = [actor.exposeJoint(None, "modelRoot", f"foot.{side}") for side in "lr"]
    try:
        seen = read_at_phase_ends(base, actor, asset, found.targets, fps, lambda: (
            actor.getPos(base.render), [ankle.getPos(base.render) for ankle in ankles]))
    finally:
        actor.cleanup()
        actor.removeNode()
    (up, _), (down, feet) = seen["take_off"], seen["landing"]
    assert abs(up.z) < 1e-3 and up.y <= face - past + 0.002 + 1e-3   # the face found to edge_tolerance (2 mm)
    assert (down - Point3(0, face + past, top)).length() < 0.01
    height = biped.HIPS + biped.HEAD_ABOVE_HIPS
    for ankle in feet:
        assert ankle.y > face + 0.1 * height and ankle.z == pytest.approx(top + biped.ANKLE, abs=0.01)


def test_the_mannequins_vault_authored_from_its_contacts(tmp_path):
    """Phase ends at the ground truth's events (hands plant 0.7 s, the root over the far face 1.24 s,
    feet land 1.5 s) within two frames, and the close edge within 7 cm of the authored box's near
    top edge (y 1.0, z 1.0): the hands plant 6 cm onto the top, their joint 3 cm above it."""
    asset = author.write(Model(MANNEQUIN), "vault", "vault", tmp_path / "vault.warp.json")
    truth = TRUTH["vault"]
    hands = [c for c in truth["contacts"] if c["joint"].startswith("hand")]
    landing = min(c["start"] for c in truth["contacts"] if c["joint"].startswith("foot") and c["start"] > 1.0)
    box = truth["obstacle"]
    over = next(f for f in range(asset.track.num_frames) if asset.track.positions[f][1] >= box["max"][1]) / 30
    assert abs(asset.phases[0].end - hands[0]["start"]) <= 2 * FRAME
    assert abs(asset.phases[1].end - over) <= 2 * FRAME
    assert abs(asset.phases[2].end - landing) <= 2 * FRAME
    root = asset.track.position(asset.phases[0].end * asset.track.fps)
    edge = np.array(root) - np.array(asset.phases[0].t_offset)
    assert np.linalg.norm(edge[1:] - (box["min"][1], box["max"][2])) < 0.07
    # its feet are planted up to the plant (the ground truth): the run-up defers its rise (design 4, 12.1)
    assert max(c["end"] for c in truth["contacts"] if c["joint"].startswith("foot") and c["start"] < hands[0]["start"]) \
        >= hands[0]["start"]
    assert [phase.defer_rise for phase in asset.phases] == [True, False, False]
    # the hands hold the close edge into far_edge, to their release (0.98 s in the ground truth): far_edge
    # warps from there (design 4, Held warp), within two frames
    release = max(c["end"] for c in hands)
    assert asset.phases[0].warp_from is None and asset.phases[2].warp_from is None
    assert asset.phases[1].warp_from == pytest.approx(release, abs=2 * FRAME)


def test_the_mannequins_mantle_stands_where_its_clip_ends(base, tmp_path):
    """design 12.1: ledge_top to the grab, then stand_on_top to the first foot's plant on the top (the
    ground truth: grab 0.48 s, foot_r on the top at 1.38 s), its target under where the clip ends (the
    ground truth's root_end) at the top's height; the feet planting from there stand on it. The provider
    serves both targets on a ledge and the warp plays them."""
    asset = author.write(Model(MANNEQUIN), "mantle", "mantle", tmp_path / "mantle.warp.json")
    truth = TRUTH["mantle"]
    assert [phase.name for phase in asset.phases] == ["ledge_top", "stand_on_top"]
    assert abs(asset.phases[0].end - 0.48) <= 2 * FRAME and asset.phases[1].start == asset.phases[0].end
    assert abs(asset.phases[1].end - 1.38) <= 2 * FRAME
    root = asset.track.position(asset.phases[1].end * asset.track.fps)
    stand = np.array(root) - np.array(asset.phases[1].t_offset)
    assert np.linalg.norm(stand - (truth["root_end"][0], truth["root_end"][1], truth["obstacle"]["max"][2])) < 0.03
    assert [c.phase for c in asset.contacts if c.joint.startswith("foot") and c.touches == "target"] == ["stand_on_top"] * 2
    # its feet stay planted up to the grab (the ground truth): ledge_top defers its rise to stand_on_top (design 4)
    assert max(c["end"] for c in truth["contacts"] if c["joint"].startswith("foot") and c["start"] < 0.48) >= 0.48 - FRAME
    assert [phase.defer_rise for phase in asset.phases] == [True, False]
    ledge = level()
    prism(ledge, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
    prism(ledge, "ledge", box_profile(3.0, 1.5), 3.0, pos=(0, 2.5, 0))
    found = TraversalProvider(SceneProbe.from_geometry(ledge), [asset]).find_at(Point3(0, 0.6, 0), 0.0)
    assert isinstance(found, Interaction) and len(found.targets) == 2, found
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.setPos(0, 0.6, 0)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    try:
        run = WarpRun(base, warper, asset, found.targets)
        assert run.finished and len(run.warp.results) == 2
        assert run.warp.results[1].arrived.z == pytest.approx(1.5 + asset.phases[1].t_offset[2], abs=1e-3)
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
        ledge.removeNode()


def test_the_authored_vault_plays_onto_every_target_over_its_own_box(base, tmp_path):
    """Against the box the clip was authored over, from where it starts: each phase ends within 1 mm of
    its target, the rates stay within 15% of 1 (nearly the identity: the hands' 6 cm onto the top is
    the difference) and the character lands past the box."""
    path = tmp_path / "vault.warp.json"
    author.write(Model(MANNEQUIN), "vault", "vault", path)
    asset = WarpAsset.load(path)
    box = TRUTH["vault"]["obstacle"]
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    prism(root, "box", box_profile(box["size"][1], box["size"][2]), box["size"][0], pos=(0, box["pos"][1], 0))
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    try:
        found = TraversalProvider(SceneProbe.from_geometry(root), [asset]).find(actor)
        assert isinstance(found, Interaction) and found.kind == "vault", found
        rates = warper.check(found.asset, found.targets)
        assert all(0.85 < rate < 1.15 for rate in rates), rates
        run = WarpRun(base, warper, found.asset, found.targets)
        assert run.finished
        for result in run.warp.results:
            assert np.linalg.norm(result.arrived - result.target) < 1e-3
        assert actor.getY() > box["max"][1] + 0.3 and actor.getZ() == pytest.approx(0.0, abs=1e-3)
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


def test_an_in_place_jump_over_a_crate_through_the_providers(base, bipeds, tmp_path):
    """The biped's jump authored for 0.3 to 0.6 m crates: the providers offer it at a 0.45 m crate,
    and every phase ends within 1 mm of its target; before take-off nothing moves the feet."""
    path = tmp_path / "jump.warp.json"
    author.write(bipeds["metre"], "Jump", "jump_over", path, height=(0.3, 0.6), depth=(0.0, 0.8))
    asset = WarpAsset.load(path)
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    prism(root, "crate", box_profile(0.4, 0.45), 1.2, pos=(0, 0.5, 0))
    actor = load_actor(bipeds["metre"].path)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    try:
        found = TraversalProvider(SceneProbe.from_geometry(root), [asset]).find(actor)
        assert isinstance(found, Interaction) and found.kind == "jump_over", found
        run = WarpRun(base, warper, found.asset, found.targets)
        assert run.finished and len(run.warp.results) == 3
        for result in run.warp.results:
            assert np.linalg.norm(result.arrived - result.target) < 1e-3
        assert np.abs(np.array(run.positions[:int(asset.phases[0].start * 60) - 1])).max() < 1e-6
        assert actor.getY() > 0.7 + 0.3
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


def test_the_command_writes_lists_and_refuses_in_one_line(bipeds, tmp_path, capsys):
    folder = tmp_path / "game"
    (folder / "assets" / "hero").mkdir(parents=True)
    (folder / "characters").mkdir()
    character = folder / "characters" / "hero.json"
    result = run_inspect(bipeds["metre"].path, "--write-character", character)
    assert result.returncode == 0, result.stderr
    out = folder / "assets" / "hero" / "hop.warp.json"
    result = run_author(bipeds["metre"].path, "Jump", "--kind", "jump_over", "--out", out, "--character", character)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {out}: Jump as jump_over (checked by loading it back)\n  close_edge ")
    assert json.loads(character.read_text())["warp_assets"] == ["hero/hop"]
    bad = [(("Walk", "--kind", "vault"), "Walk is authored in place: a vault needs a clip whose root travels"),
           (("Idle", "--kind", "jump_over"), "Idle: its feet never leave the ground between two plants"),
           (("Jump", "--kind", "vault"), "Jump is authored in place"),
           (("Sprint", "--kind", "vault"), "clip 'Sprint' not found; the model has: Attack, Fall, Idle, Jump"),
           (("Jump", "--kind", "cartwheel"), "argument --kind: invalid choice")]
    for args, message in bad:
        status, stderr = tool_in_process(capsys, "author", bipeds["metre"].path, *args, "--out", tmp_path / "bad.warp.json")
        assert status == 2 and stderr.count("\n") == 1 and message in stderr, stderr
        assert not (tmp_path / "bad.warp.json").exists()


class _Limb:
    def __init__(self, joint):
        self.joint, self.is_foot, self.role = joint, joint.startswith("foot"), joint


class _Plant:
    def __init__(self, joint, start, end):
        self.limb, self.start, self.end = _Limb(joint), start, end


class _Clip:
    """What `author` reads of a clip's facts to write contacts: a hand planting at 1.0 s (the
    phase's end) at (0.1, 0.5, 1.2), a foot planting at 0.2 s; 30 fps, 2 s long."""
    fps = 30

    class facts:
        seconds = 2.0
        contacts = [_Plant("hand_r", 1.0, 1.4), _Plant("foot_l", 0.2, 0.6)]

    class model:   # each limb's joint has a parent and a grandparent: the IK can bend it
        joints = {"hand_r": "forearm", "forearm": "arm", "arm": None, "foot_l": "shin", "shin": "thigh", "thigh": None}

    @staticmethod
    def joint(name, seconds):
        return np.array([0.1, 0.5, 1.2]) if name == "hand_r" else np.array([0.0, 0.1, 0.08])

    @staticmethod
    def root(seconds):
        return np.array([0.0, 0.0, 0.0])


@pytest.mark.parametrize("kind, normal", [("use", None), ("pick_up", None), ("vault", "absent")])
def test_a_marker_kinds_hand_goes_to_the_marker_point(kind, normal):
    """A hand planting as a marker kind's phase ends touches the marker's point itself (`"normal":
    null`, design 5.1): the level designer put it where the hand goes. A traversal's hand touches the
    top (no normal written: up). Its offset is from the target either way; feet stand on the surface."""
    target = np.array([0.1, 0.5, 1.0])
    written = author._contacts(_Clip, [("hand", 0.0, 1.0, target)], kind)
    hand, foot = sorted(written, key=lambda c: c["joint"], reverse=True)
    assert (hand["touches"], hand["phase"], hand["offset"]) == ("target", "hand", [0.0, 0.0, 0.2])
    assert hand.get("normal", "absent") == normal
    assert foot["touches"] == "surface" and "normal" not in foot
