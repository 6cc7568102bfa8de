"""The ground kept under the feet from one frame to the next (ik.scene_view.KeptGround,
`motionwarp-ik-ground-keep`).

The unit tests ask a scripted probe whose surface is the test's own plane (so the oracle is the
plane's equation) and count its rays. The walk compares the mannequin's feet, kept on the ground
across a step, a ramp and a drop, with the default tolerance and with a ray every frame.
"""
import pytest

from motionwarp.base.config import ContactIKSettings
from motionwarp.ik.scene_view import KeptGround


class PlaneProbe:
    """A probe whose only surface is z = z0 + sx * x + sy * y where `solid(x, y)`; counts its rays."""

    def __init__(self, z0=0.2, sx=0.0, sy=0.0, solid=lambda x, y: True, static=True):
        self.z0, self.sx, self.sy, self.solid, self.static = z0, sx, sy, solid, static
        self.version, self.rays = 0, 0

    def height(self, x, y):
        return self.z0 + self.sx * x + self.sy * y

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


def kept(probe, keep=0.01):
    return KeptGround(probe, ContactIKSettings(ik_ground_keep=keep))


@pytest.mark.parametrize("slope", [(0.0, 0.0), (0.27, -0.1)], ids=["flat", "sloped"])
def test_a_point_near_the_last_ray_is_answered_on_its_plane_without_a_ray(slope):
    probe = PlaneProbe(0.2, *slope)
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
    probe = PlaneProbe(0.2)
    ground = kept(probe)
    ground.drop("foot", 0.0, 0.0, 1.0, -1.0)
    ground.drop("foot", 0.0, 0.0, 1.009, -1.0)      # top raised within the tolerance
    assert probe.rays == 1
    ground.drop("foot", 0.0, 0.0, 1.02, -1.0)       # raised more: something may lie above the old top
    assert probe.rays == 2
    assert ground.drop("foot", 0.0, 0.0, 0.1, -1.0) is None   # the ray now starts below the surface
    assert probe.rays == 3


def test_a_miss_is_kept_only_while_the_ray_reaches_no_lower():
    probe = PlaneProbe(0.2, solid=lambda x, y: x > 5.0)
    ground = kept(probe)
    assert ground.drop("foot", 0.0, 0.0, 1.0, 0.5) is None
    assert ground.drop("foot", 0.005, 0.0, 1.0, 0.495) is None
    assert probe.rays == 1
    assert ground.drop("foot", 0.005, 0.0, 1.0, 0.4) is None   # reaches lower than the kept miss
    assert probe.rays == 2


@pytest.mark.parametrize("why", ["not static", "tolerance 0", "changed"])
def test_nothing_is_kept_on_a_probe_that_may_move_or_without_a_tolerance(why):
    probe = PlaneProbe(0.2, static=why != "not static")
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


@pytest.mark.parametrize("fps", [60, 144])
def test_walking_with_the_default_tolerance_matches_a_ray_every_frame(base, fps):
    """Across a step, a ramp and a drop, the feet with the default tolerance (2 mm) are where a ray
    every frame puts them, to 0.01 mm, in every frame, and fewer rays are cast."""
    from motionwarp import SceneProbe
    from tests.bench import ground_keep
    root = ground_keep.terrain(base.render)
    probe = SceneProbe.from_geometry(root)
    rays, cast = [0], probe.drop_normal

    def counted(*args):
        rays[0] += 1
        return cast(*args)
    probe.drop_normal = counted
    try:
        reference = ground_keep.walk(base, probe, 0.0, fps)
        reference_rays, rays[0] = rays[0], 0
        got = ground_keep.walk(base, probe, ContactIKSettings().ik_ground_keep, fps)
    finally:
        root.removeNode()
    assert len(got) == len(reference)
    assert max(ground_keep.differences(reference, got)) < 1e-5
    assert rays[0] < 0.9 * reference_rays
