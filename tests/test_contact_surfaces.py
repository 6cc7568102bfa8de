"""Each contact's surface along the contact's own direction, a few centimetres from the warp's
target (issue 26): a hand past the end of a thin top never drops to the floor, a hand on a wall
finds the wall, a marker's point is kept. The oracle is the test's own boxes and the contract
(design 5.1: the joint sits offset · normal above the surface found along the normal, from
`ik_ray_above` out of the target's surface to `ik_surface_reach` into it; else the offset point).
"""
import pytest
from panda3d.core import LQuaternionf, Point3

from motionwarp import SceneProbe, WarpAsset, WarpTarget
from motionwarp.base.config import ContactIKSettings
from motionwarp.ik.scene_view import SceneView
from motionwarp.warp.contacts import Contact

from .contact_helpers import ContactRun
from .obstacles import box_profile, prism
from .test_ik_mutants import StubWarp

#: A narrow stand with a thin top: 0.3 m across (the vault's hands land 0.22 m either side of the
#: character's line, past its ends), 0.7 m deep, its 4 cm top at 0.8 m, on four legs.
WIDTH, DEPTH, TOP, THICK, NEAR = 0.3, 0.7, 0.8, 0.04, 1.0
#: Hips lower than the warped clip's by more than this in any frame are a collapse (issue 26).
HIPS_DROP = 0.10


class ThinStand:
    """The stand on a ground slab, its near face NEAR ahead (+Y); `surface` from its own numbers."""

    def __init__(self, render):
        self.root = render.attachNewNode("thin stand")
        prism(self.root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
        prism(self.root, "top", box_profile(DEPTH, THICK), WIDTH, pos=(0, NEAR + DEPTH / 2, TOP - THICK))
        for x in (-WIDTH / 2 + 0.025, WIDTH / 2 - 0.025):
            for y in (NEAR + 0.025, NEAR + DEPTH - 0.025):
                prism(self.root, "leg", box_profile(0.05, TOP - THICK), 0.05, pos=(x, y, 0))

    @staticmethod
    def on_top(x, y):
        return abs(x) <= WIDTH / 2 and NEAR <= y <= NEAR + DEPTH

    @staticmethod
    def surface(x, y):
        return TOP if ThinStand.on_top(x, y) else 0.0


@pytest.fixture(scope="module")
def stand_runs(showbase, warp_assets):
    """The vault over the stand found by the providers, played with and without the contact IK."""
    runs = {}
    for ik in (True, False):
        stand = ThinStand(showbase.render)
        runs[ik] = ContactRun(showbase, stand, [warp_assets["vault"]], 30, ik=ik)
        stand.root.removeNode()
    return runs


@pytest.fixture(scope="module")
def use(warp_asset_dir):
    """The use asset (one phase, `hand`; its hand's contact on the marker's point)."""
    return WarpAsset.load(warp_asset_dir / "use.warp.json")


def test_a_hand_past_the_end_of_a_thin_top_keeps_the_warps_target(stand_runs):
    """Both hands land past the stand's ends: nothing is within 15 cm under them, so each stays at
    its authored palm height above the top's height (where the warp puts it), within 1.5 cm. The
    ray reaching 1 m down found the floor: the hands went to 3 cm above it."""
    run = stand_runs[True]
    assert run.finished and run.asset.clip == "vault"
    touches = list(run.touching("hand"))
    assert touches and not any(ThinStand.on_top(touch.x, touch.y) for _, _, touch in touches)
    for palm, pos, _ in touches:
        assert abs(pos.z - palm - TOP) < 0.015, pos.z - palm


def test_no_frame_collapses_onto_the_floor(stand_runs):
    """In no frame are the hips more than 10 cm below where the warped clip alone puts them (they
    dropped to 0.10 m above the floor), and no sole goes more than 1 cm into the floor (34 cm)."""
    with_ik, without = stand_runs[True], stand_runs[False]
    assert len(with_ik.frames) == len(without.frames)
    drops = [plain["pos"]["hips"].z - held["pos"]["hips"].z for held, plain in zip(with_ik.frames, without.frames)]
    assert max(drops) < HIPS_DROP, max(drops)
    assert with_ik.foot_depth(ThinStand) < 0.01


@pytest.mark.parametrize("wall_y, expected_y", [(1.0, 0.95), (1.04, 0.99), (0.97, 0.92), (1.2, 0.95)],
                         ids=["on-the-target", "4cm-behind", "3cm-proud", "out-of-reach"])
def test_a_hand_on_a_wall_finds_the_wall_along_its_normal(base, use, wall_y, expected_y):
    """A hand authored 5 cm in front of a wall (offset (0, -0.05, 0), normal (0, -1, 0): the wall
    faces the character): it ends 5 cm in front of the wall's face where the face lies within
    15 cm behind the target or in front of it, and at the offset point (y 0.95) where the wall is
    farther (20 cm)."""
    root = base.render.attachNewNode("wall level")
    prism(root, "wall", box_profile(0.3, 2.5), 3.0, pos=(0, wall_y + 0.15, 0))
    view = _view(base, root, SceneProbe.from_geometry(root), use)
    hand = Contact("hand_r", 1.1, 1.45, "target", phase="hand", offset=(0.0, -0.05, 0.0), normal=(0.0, -1.0, 0.0),
                   touchdown=(0, 0, 0))
    point, _ = view.target_points(0, hand)
    assert (point - Point3(0, expected_y, 1.2)).length() < 1e-4, point


def test_a_turned_target_turns_its_normal(base, use):
    """The target turned 90 degrees (facing -X): the wall it faces is found along -X of the world."""
    root = base.render.attachNewNode("wall level")
    prism(root, "wall", box_profile(3.0, 2.5), 0.3, pos=(-1.19, 1.0, 0))   # its face at x = -1.04
    view = _view(base, root, SceneProbe.from_geometry(root), use, h=90.0, pos=(-1.0, 1.0, 1.2))
    hand = Contact("hand_r", 1.1, 1.45, "target", phase="hand", offset=(0.0, -0.05, 0.0), normal=(0.0, -1.0, 0.0),
                   touchdown=(0, 0, 0))
    point, _ = view.target_points(0, hand)
    assert (point - Point3(-0.99, 1.0, 1.2)).length() < 1e-4, point


def test_a_markers_point_is_kept_and_a_top_is_found_under_a_hand(base, use):
    """A button 4 cm proud of its wall, the marker pressing it 1 cm in: with `normal` null (the
    shipped use asset) the hand stays on the marker; looked for straight down (the old rule, a
    hand's normal up) the button's top 5 cm above lifts it there."""
    root = base.render.attachNewNode("button wall")
    prism(root, "wall", box_profile(0.2, 2.2), 2.0, pos=(0, 1.1, 0))          # face at y = 1.0
    prism(root, "button", box_profile(0.04, 0.1), 0.12, pos=(0, 0.98, 1.1))   # y 0.96 to 1.0, z 1.1 to 1.2
    assert [contact.normal for contact in use.contacts if contact.touches == "target"] == [None]
    view = _view(base, root, SceneProbe.from_geometry(root), use, pos=(0.0, 0.97, 1.15))
    marker = Contact("hand_r", 1.1, 1.45, "target", phase="hand", normal=None, touchdown=(0, 0, 0))
    assert (view.target_points(0, marker)[0] - Point3(0, 0.97, 1.15)).length() < 1e-6
    view = _view(base, root, SceneProbe.from_geometry(root), use, pos=(0.0, 0.97, 1.15))
    down = Contact("hand_r", 1.1, 1.45, "target", phase="hand", touchdown=(0, 0, 0))
    assert view.target_points(0, down)[0].z == pytest.approx(1.2, abs=1e-4)


def _view(base, root, probe, asset, h=0.0, pos=(0.0, 1.0, 1.2)):
    actor = root.attachNewNode("actor")
    warp = StubWarp(asset, WarpTarget(pos, h=h), (Point3(0, 0, 0), LQuaternionf.identQuat()))
    view = SceneView(actor, base.render, probe, None, ContactIKSettings())
    view.start(warp)
    return view

