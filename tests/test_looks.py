"""The demo's look (motionwarp_demo/views/looks.py, motionwarp_demo/level/world.py): colours keep their
meaning under simplepbr, the ground does not shimmer, and the sun's shadow camera rides with the character."""
import pytest
from panda3d.core import CardMaker, LightAttrib, NodePath, SamplerState, Vec3

from motionwarp_demo.views.looks import Looks, srgb_to_linear, untonemapped
from motionwarp_demo.level.world import SUN_DIRECTION, Lights, checker_texture, surface


@pytest.mark.parametrize("srgb, linear", [(0.0, 0.0), (0.04, 0.04 / 12.92), (0.5, 0.21404), (0.8, 0.60383), (1.0, 1.0)])
def test_srgb_to_linear_follows_the_srgb_standard(srgb, linear):
    # Values from IEC 61966-2-1's transfer function, computed by hand.
    assert tuple(srgb_to_linear((srgb, srgb, srgb, 0.5))) == pytest.approx((linear, linear, linear, 0.5), abs=1e-5)


@pytest.mark.parametrize("shown", [0.1, 0.62, 0.86])
def test_the_sky_colour_comes_out_of_simplepbrs_tone_map_as_asked(shown):
    # simplepbr's tonemap.frag, transcribed here: x = max(0, c - 0.004); x(6.2x + 0.5) / (x(6.2x + 1.7) + 0.06)
    x = max(0.0, untonemapped(shown) - 0.004)
    assert x * (6.2 * x + 0.5) / (x * (6.2 * x + 1.7) + 0.06) == pytest.approx(shown, abs=1e-6)
    assert Looks().clear_color((shown, 0.5, 0.5, 1)) == (shown, 0.5, 0.5, 1)   # fixed-function: as given


def test_adapt_makes_base_colours_linear_once_and_leaves_shared_materials_alone():
    root = NodePath("scene")
    shared = surface((0.5, 0.8, 1.0, 1))
    for name in ("a", "b"):
        root.attachNewNode(CardMaker(name).generate()).setMaterial(shared)
    Looks(pbr=True).adapt(root)
    Looks(pbr=True).adapt(root)   # a second call changes nothing
    [material] = root.findAllMaterials()
    assert material.getName() == "surface (linear)"   # a copy...
    assert tuple(shared.getBaseColor()) == pytest.approx((0.5, 0.8, 1.0, 1))   # ...the original is unchanged
    assert tuple(material.getBaseColor()) == pytest.approx((0.21404, 0.60383, 1.0, 1), abs=1e-5)
    plain = NodePath(CardMaker("plain").generate())
    plain.setMaterial(shared)
    Looks().adapt(plain)   # fixed-function lighting reads the colours as they are
    assert plain.getMaterial().getName() == "surface"
    assert tuple(plain.getMaterial().getBaseColor()) == pytest.approx((0.5, 0.8, 1.0, 1))


def test_the_ground_texture_is_mipmapped_and_anisotropic():
    texture = checker_texture()
    assert texture.getMinfilter() == SamplerState.FT_linear_mipmap_linear
    assert texture.getAnisotropicDegree() > 1


def test_the_sun_follows_the_character_and_keeps_its_direction(base):
    lights = Lights(base.render, Looks(pbr=True, shadows=True))
    actor = base.render.attachNewNode("character")
    lights.follow(actor)
    for pos, h in (((3, 4, 0), 90), ((-7, 12, 1.5), -30)):
        actor.setPosHpr(pos, (h, 0, 0))
        assert tuple(lights.sun.getPos(base.render)) == pytest.approx(pos, abs=1e-5)
        expected = Vec3(SUN_DIRECTION)
        expected.normalize()
        assert tuple(lights.sun.getQuat(base.render).getForward()) == pytest.approx(tuple(expected), abs=1e-5)
    assert lights.sun.node().isShadowCaster()
    lights.remove()
    attrib = base.render.getAttrib(LightAttrib)
    assert attrib is None or attrib.getNumOnLights() == 0
