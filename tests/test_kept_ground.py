"""The ground kept under the feet from one frame to the next (ik.scene_view.KeptGround,
`motionwarp-ik-ground-keep`).

The unit tests ask a scripted probe whose surface is the test's own plane (so the oracle is the
plane's equation) and count its rays. Over real geometry (a floor with a gap and a low slab on
it) every answer is the one a fresh ray of the probe gives there. The walk compares the
mannequin's feet, kept on the ground across a step, a ramp and a drop, with the default
tolerance and with a ray every frame.
"""
import pytest

from motionwarp.base.config import ContactIKSettings
from motionwarp.ik.scene_view import KeptGround


class PlaneProbe:
    """A probe whose only surface is z = z0 + sx * x + sy * y over one triangle (`corners`, its (x, y)
    counter-clockwise; by default far wider than any test walks); counts its rays. `covered`:
    something lies just above the plane everywhere (no box over it is empty)."""

    def __init__(self, z0=0.2, sx=0.0, sy=0.0, corners=((-100, -100), (100, -100), (0, 100)), static=True,
                 covered=False):
        self.z0, self.sx, self.sy, self.corners, self.static, self.covered = z0, sx, sy, corners, static, covered
        self.version, self.rays = 0, 0

    def height(self, x, y):
        return self.z0 + self.sx * x + self.sy * y

    def solid(self, x, y):
        (ax, ay), (bx, by), (cx, cy) = self.corners
        return all((qx - px) * (y - py) - (qy - py) * (x - px) >= 0
                   for (px, py), (qx, qy) in (((ax, ay), (bx, by)), ((bx, by), (cx, cy)), ((cx, cy), (ax, ay))))

    def drop_normal(self, x, y, top, bottom):
        self.rays += 1
        z = self.height(x, y)
        if not self.solid(x, y) or not bottom <= z <= top:
            return None
        length = (self.sx ** 2 + self.sy ** 2 + 1.0) ** 0.5
        return z, (-self.sx / length, -self.sy / length, 1.0 / length)

    def drop(self, x, y, top, bottom):
        found = self.drop_normal(x, y, top, bottom)
        return None if found is None else (found[0], found[1][2])

    def drop_face(self, x, y, top, bottom):
        found = self.drop_normal(x, y, top, bottom)
        return None if found is None else (*found, tuple((cx, cy, self.height(cx, cy)) for cx, cy in self.corners))

    def empty(self, low, high):
        heights = [self.height(x, y) for x in (low[0], high[0]) for y in (low[1], high[1])]
        return not self.covered and (max(heights) < low[2] or min(heights) > high[2])


def counting_rays(probe):
    """Count every ray `probe` casts for the ground (drop_normal, drop_face): [count], reset by the caller."""
    rays = [0]

    def counted(cast):
        def ray(*args):
            rays[0] += 1
            return cast(*args)
        return ray
    probe.drop_normal, probe.drop_face = counted(probe.drop_normal), counted(probe.drop_face)
    return rays


def kept(probe, keep=0.01):
    """A KeptGround over `probe` keeping rays `keep` metres."""
    return KeptGround(probe, ContactIKSettings(ik_ground_keep=keep))


@pytest.mark.parametrize("slope", [(0.0, 0.0), (0.27, -0.1)], ids=["flat", "sloped"])
def test_a_point_near_the_last_ray_is_answered_on_its_plane_without_a_ray(slope):
    probe = PlaneProbe(0.2, *slope, covered=True)
    ground = kept(probe)
    assert ground.drop("foot", 1.0, 2.0, 1.5, -1.0) == pytest.approx(probe.height(1.0, 2.0), abs=1e-12)
    for x, y in [(1.006, 2.0), (1.0, 1.993), (1.004, 2.005), (1.0099, 2.0)]:
        assert ground.drop("foot", x, y, 1.5, -1.0) == pytest.approx(probe.height(x, y), abs=1e-9)
    assert probe.rays == 1
    # farther than the tolerance (1 cm) from where the ray was cast: a new ray, and answers from there
    assert ground.drop("foot", 1.0101, 2.0, 1.5, -1.0) == pytest.approx(probe.height(1.0101, 2.0), abs=1e-12)
    assert probe.rays == 2
    # every name keeps its own ground
    ground.drop("other foot", 1.0101, 2.0, 1.5, -1.0)
    assert probe.rays == 3


def test_a_ray_reaching_higher_or_missing_the_kept_height_is_cast_again():
    probe = PlaneProbe(0.2, covered=True)
    ground = kept(probe)
    ground.drop("foot", 0.0, 0.0, 1.0, -1.0)
    ground.drop("foot", 0.0, 0.0, 1.009, -1.0)      # top raised within the tolerance
    assert probe.rays == 1
    ground.drop("foot", 0.0, 0.0, 1.02, -1.0)       # raised more: something may lie above the old top
    assert probe.rays == 2
    assert ground.drop("foot", 0.0, 0.0, 0.1, -1.0) is None   # the ray now starts below the surface
    assert probe.rays == 3


def test_a_miss_is_kept_only_while_the_ray_reaches_no_lower():
    probe = PlaneProbe(0.2, corners=((5.0, -100), (100, -100), (5.0, 100)))
    ground = kept(probe)
    assert ground.drop("foot", 0.0, 0.0, 1.0, 0.5) is None
    assert ground.drop("foot", 0.005, 0.0, 1.0, 0.495) is None
    assert probe.rays == 1
    assert ground.drop("foot", 0.005, 0.0, 1.0, 0.4) is None   # reaches lower than the kept miss
    assert probe.rays == 2


@pytest.mark.parametrize("why", ["not static", "tolerance 0", "changed"])
def test_nothing_is_kept_on_a_probe_that_may_move_or_without_a_tolerance(why):
    probe = PlaneProbe(0.2, static=why != "not static", covered=True)
    ground = kept(probe, 0.0 if why == "tolerance 0" else 0.01)
    ground.drop("foot", 0.0, 0.0, 1.0, -1.0)
    if why == "changed":
        probe.version += 1   # what SceneProbe.changed() does
    assert ground.drop("foot", 0.0, 0.0, 1.0, -1.0) == pytest.approx(0.2)
    assert probe.rays == 2


def test_a_wall_is_never_kept():
    probe = PlaneProbe(0.2, sx=20.0)   # steeper than 84 degrees
    ground = kept(probe)
    ground.drop("foot", 0.0, 0.0, 1.0, -1.0)
    ground.drop("foot", 0.0, 0.0, 1.0, -1.0)
    assert probe.rays == 2


def test_level_ground_is_kept_a_metre_across():
    """A ray on level ground with nothing above it answers every ray within half a metre each way
    on the plane, for every name; outside that, or from higher than was cleared, a ray again."""
    probe = PlaneProbe(0.2)
    ground = kept(probe, 0.002)
    assert ground.drop("foot", 1.0, 2.0, 1.0, -1.0) == pytest.approx(0.2)
    for name, x, y in [("foot", 1.3, 2.4), ("other foot", 0.51, 1.5), ("origin", 1.49, 2.0), ("foot", 1.0, 2.0)]:
        assert ground.drop(name, x, y, 1.0, -1.0) == pytest.approx(0.2, abs=1e-12)
    assert probe.rays == 1
    ground.drop("foot", 1.3, 2.4, 1.0021, -1.0)
    assert probe.rays == 2   # from higher than the patch was cleared to: a ray, and a new patch
    ground.drop("foot", 1.0, 1.49, 1.0, -1.0)
    assert probe.rays == 3   # outside both
    assert ground.drop("other foot", 1.3, 2.5, 0.1, -1.0) is None   # a ray starting below the plane
    assert probe.rays == 4


def test_a_patch_ends_at_its_triangles_edge():
    """Past the edge of the triangle the ray found (a hole, or another surface may lie there), inside
    the square: a ray again."""
    probe = PlaneProbe(0.2, corners=((-10, -10), (1.4, -10), (1.4, 10)))
    ground = kept(probe, 0.002)
    ground.drop("foot", 1.0, 2.0, 1.0, -1.0)
    assert ground.drop("foot", 1.39, 2.3, 1.0, -1.0) == pytest.approx(0.2, abs=1e-12)
    assert probe.rays == 1
    assert ground.drop("foot", 1.41, 2.0, 1.0, -1.0) is None
    assert probe.rays == 2


@pytest.mark.parametrize("probe", [PlaneProbe(0.2, sx=0.002), PlaneProbe(0.2, covered=True)],
                         ids=["sloped", "covered"])
def test_no_patch_is_kept_on_a_slope_or_under_something(probe):
    """The square is kept only when its plane rises less than 0.5 mm across it and nothing lies
    above it: else a ray again 2 mm away."""
    ground = kept(probe, 0.002)
    ground.drop("foot", 1.0, 2.0, 1.0, -1.0)
    assert ground.drop("foot", 1.1, 2.0, 1.0, -1.0) == pytest.approx(probe.height(1.1, 2.0), abs=1e-12)
    assert probe.rays == 2


def test_kept_ground_answers_as_a_fresh_ray_over_a_floor_with_a_gap_and_a_slab(base):
    """Points walked in 1 to 3 cm steps across two floor tiles with a 5 cm gap between them and a
    4 cm slab lying on one: every answer is what a ray of the probe itself gives there, and most
    are answered without one."""
    import math

    from motionwarp import SceneProbe
    from tests.obstacles import box_profile, prism
    root = base.render.attachNewNode("floor with a gap")
    prism(root, "tile a", box_profile(4.0, 0.1), 4.0, pos=(-2.0, 0, -0.1))
    prism(root, "tile b", box_profile(4.0, 0.1), 4.0, pos=(2.05, 0, -0.1))
    prism(root, "slab", box_profile(0.3, 0.04), 0.2, pos=(1.0, 0.5, 0))
    probe = SceneProbe.from_geometry(root)
    ground = KeptGround(probe, ContactIKSettings())
    cast = probe.drop_normal
    rays = counting_rays(probe)
    steps = 0
    try:
        for step in range(600):
            angle = step * 0.01
            x, y = -1.5 + step * 0.006, 0.5 + 0.4 * math.sin(7 * angle)
            for name, (px, py) in (("foot", (x, y)), ("other foot", (x + 0.2, y - 0.15))):
                steps += 1
                found = ground.drop(name, px, py, 0.5, -1.0)
                ray = cast(px, py, 0.5, -1.0)
                assert (found is None) == (ray is None), (px, py)
                if ray is not None:
                    assert found == pytest.approx(ray[0], abs=1e-6), (px, py)
    finally:
        root.removeNode()
    assert rays[0] < 0.5 * steps


@pytest.mark.parametrize("fps", [60, 144])
def test_walking_with_the_default_tolerance_matches_a_ray_every_frame(base, fps):
    """Across a step, a ramp and a drop, the feet with the default tolerance (2 mm) are where a ray
    every frame puts them, to 0.01 mm, in every frame, and fewer rays are cast."""
    from motionwarp import SceneProbe
    from tests.bench import ground_keep
    root = ground_keep.terrain(base.render)
    probe = SceneProbe.from_geometry(root)
    rays = counting_rays(probe)
    try:
        reference = ground_keep.walk(base, probe, 0.0, fps)
        reference_rays, rays[0] = rays[0], 0
        got = ground_keep.walk(base, probe, ContactIKSettings().ik_ground_keep, fps)
    finally:
        root.removeNode()
    assert len(got) == len(reference)
    assert max(ground_keep.differences(reference, got)) < 1e-5
    assert rays[0] < 0.9 * reference_rays
