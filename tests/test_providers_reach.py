"""Providers offer only what the warper plays (docs/design.md 7): an Interaction where
`MotionWarper.check` passes from where the character stands, else the warper's own refusal."""
import re

import pytest
from panda3d.core import Point3

from motionwarp import (Interaction, MantleProvider, MotionWarpSettings, Refusal, SceneProbe,
                        TraversalProvider, UsageError, WarpRefused, WarpTarget)
from motionwarp.scene.chooser import InteractionChooser
from motionwarp.warp.refusal import Cause

from .obstacles import box_profile, level, prism
from .warp_helpers import ledge_targets

HEIGHT, DEPTH = 1.2, 3.0   # a ledge the "mantle" asset takes (its traversal range holds it)
DISTANCES = (0.3, 0.5, 0.7, 0.9, 1.2, 1.5, 1.8)


@pytest.fixture(scope="module")
def assets(warp_assets):
    return list(warp_assets.values())


def ledge_probe(distance):
    """A 1.2 m ledge whose face lies `distance` in front of a character at the origin facing +Y."""
    root = level()
    prism(root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
    prism(root, "ledge", box_profile(DEPTH, HEIGHT), 3.0, pos=(0, distance + DEPTH / 2, 0))
    return SceneProbe.from_geometry(root)


def warper_says(warper, asset, distance):
    """None when the warper plays `asset` onto the ledge's close edge (the test's geometry), else its reason."""
    try:
        warper.check(asset, ledge_targets(HEIGHT, distance))
    except WarpRefused as refused:
        return str(refused)
    return None


def same_reason(said, expected):
    """The same words and numbers within 0.02 (the provider measures the edge to a few mm)."""
    number = r"\d+\.\d+"
    assert re.sub(number, "#", said) == re.sub(number, "#", expected), (said, expected)
    for got, want in zip(re.findall(number, said), re.findall(number, expected)):
        assert float(got) == pytest.approx(float(want), abs=0.02), (said, expected)


def test_a_mantle_is_offered_exactly_where_the_warper_plays_it(rig, warp_assets, assets):
    actor, warper = rig
    offered, refused = [], []
    for distance in DISTANCES:
        found = MantleProvider(ledge_probe(distance), assets).find_at(Point3(0, 0, 0), 0.0)
        expected = warper_says(warper, warp_assets["mantle"], distance)
        if expected is None:
            assert isinstance(found, Interaction) and found.asset is warp_assets["mantle"], (distance, found)
            assert found.targets[0].pos.almostEqual(Point3(0, distance, HEIGHT), 0.01)
            warper.check(found.asset, found.targets)   # the provider's own targets pass too
            offered.append(distance)
        else:
            assert isinstance(found, Refusal), (distance, found)
            same_reason(found.reason, expected)
            assert found.kind == "mantle" and found.distance == pytest.approx(distance, abs=0.01)
            assert found.numbers["height"] == pytest.approx(HEIGHT, abs=0.01)
            refused.append(distance)
    assert offered and 1.2 in refused, (offered, refused)   # both answers are met along the way
    assert all(d < min(offered) or d > max(offered) for d in refused)   # too near or too far, not between
    assert "ratio" in warper_says(warper, warp_assets["mantle"], 1.2)


def test_the_refusal_carries_the_warpers_numbers(rig, warp_assets, assets):
    actor, warper = rig
    found = MantleProvider(ledge_probe(1.2), assets).find_at(Point3(0, 0, 0), 0.0)
    ratio = float(warper_says(warper, warp_assets["mantle"], 1.2).split("ratio ")[1].split(",")[0])
    assert found.numbers["stretch"] == pytest.approx(ratio, abs=0.02)
    assert ratio > warper.settings.max_stretch


def test_a_game_with_other_limits_gets_answers_matching_its_warper(rig, warp_assets, assets):
    actor, warper = rig
    warper.settings.max_stretch = 20.0
    try:
        assert warper_says(warper, warp_assets["mantle"], 1.2) is None
        provider = MantleProvider(ledge_probe(1.2), assets, warp_settings=warper.settings)
        assert isinstance(provider.find_at(Point3(0, 0, 0), 0.0), Interaction)
        # the kept answer follows settings changed in place, or replaced
        warper.settings.max_stretch = 3.0
        same_reason(provider.find_at(Point3(0, 0, 0), 0.0).reason, warper_says(warper, warp_assets["mantle"], 1.2))
        provider.warp_settings = MotionWarpSettings(max_stretch=20.0)
        assert isinstance(provider.find_at(Point3(0, 0, 0), 0.0), Interaction)
    finally:
        warper.settings.max_stretch = 3.0


def test_a_bigger_character_reaches_farther(rig, warp_assets, assets):
    """At scale 3 the clip moves three times as far: the ledge at 1.2 m is within its stretch."""
    actor, warper = rig
    actor.setScale(3.0)
    try:
        assert warper_says(warper, warp_assets["mantle"], 1.2) is None
        probe = ledge_probe(1.2)
        assert isinstance(MantleProvider(probe, assets).find(actor), Interaction)
        assert isinstance(InteractionChooser([MantleProvider(probe, assets)]).find(actor), Interaction)
        asked = MantleProvider(probe, assets)   # its kept answer is for one scale only
        assert isinstance(asked.find_at(Point3(0, 0, 0), 0.0), Refusal)
        assert isinstance(asked.find_at(Point3(0, 0, 0), 0.0, 3.0), Interaction)
    finally:
        actor.setScale(1.0)


def test_the_traversal_provider_says_the_warpers_reason(rig, warp_assets, assets):
    actor, warper = rig
    probe = ledge_probe(1.2)
    found = TraversalProvider(probe, assets).find_at(Point3(0, 0, 0), 0.0)
    assert not found and found.too_far   # a vault does not fit; the mantle will, closer
    same_reason(found.reason.split("; ")[-1], warper_says(warper, warp_assets["mantle"], 1.2))


def test_warp_settings_must_be_motion_warp_settings(assets):
    with pytest.raises(UsageError, match="MantleProvider warp_settings: expected a MotionWarpSettings"):
        MantleProvider(ledge_probe(1.0), assets, warp_settings={"max_stretch": 5})


def test_joined_causes_are_said_from_their_data():
    """Causes of one reason that each name their kind are said as one ("too high to vault (..) or jump onto
    (..)"); a warper's sentence beside them keeps each whole ("..; .."); each sentence once."""
    from motionwarp.scene.providers import said
    vault, mantle = Cause("too high", "vault", 3.0, 1.5), Cause("too high", "mantle", 3.0, 2.3)
    onto = Cause("too high", "jump onto", 3.0, 0.9)
    stretch = Cause("phase 'ledge_top' needs 1.28 m", value=9.81, limit=3.0, unit="", name="stretch",
                    detail="ratio 9.81, allowed 0 to 3")
    assert said([vault, onto]) == "too high to vault (3.00 m > 1.50 m) or jump onto (3.00 m > 0.90 m)"
    assert (said([vault, mantle, onto, vault])
            == "too high to vault (3.00 m > 1.50 m) or mantle (3.00 m > 2.30 m) or jump onto (3.00 m > 0.90 m)")
    assert (said([vault, stretch, onto]) == "too high to vault (3.00 m > 1.50 m); phase 'ledge_top' needs 1.28 m "
            "(ratio 9.81, allowed 0 to 3); too high to jump onto (3.00 m > 0.90 m)")
    low = Cause("too low", "vault", 0.2, 0.5)
    assert said([vault, low]) == "too high to vault (3.00 m > 1.50 m); too low to vault (0.20 m < 0.50 m)"


def test_a_value_that_rounds_to_its_limit_is_said_a_digit_finer():
    """A sign's board 0.496 m high was "too low to vault (0.50 m < 0.50 m)" (issue 26): the value, not the
    limit, gets the digit that tells them apart; values apart at the usual digits are said as before."""
    assert Cause("too low", "vault", 0.4962, 0.5).text == "too low to vault (0.496 m < 0.50 m)"
    assert Cause("too high", "vault", 1.5031, 1.5).text == "too high to vault (1.503 m > 1.50 m)"
    assert Cause("not facing it", None, 50.2, 50.0, unit="°").text == "not facing it (50.2° > 50°)"
    assert Cause("too low", "vault", 0.44, 0.5).text == "too low to vault (0.44 m < 0.50 m)"


def test_only_a_stretch_too_long_is_too_far(rig, warp_assets, assets):
    """`too_far` where the warper's ratio is above max_stretch (walking closer helps), not for a ledge too near."""
    actor, warper = rig
    answers = {d: MantleProvider(ledge_probe(d), assets).find_at(Point3(0, 0, 0), 0.0) for d in DISTANCES}
    for distance, found in answers.items():
        said = warper_says(warper, warp_assets["mantle"], distance)
        ratio = re.search(r"ratio ([\d.]+)", said or "")
        long = ratio is not None and float(ratio.group(1)) > warper.settings.max_stretch
        assert (not found and found.too_far) == long, (distance, found)
    assert answers[1.2].too_far and not answers[0.3].too_far and not answers[0.3]   # refused, but not for distance


def test_the_chooser_shows_what_comes_closer_before_a_nearer_refusal():
    """A table refused for good 1.36 m away, its marker too far at 1.43 m: the prompt names the marker."""
    from motionwarp.scene.chooser import best
    table = Refusal("no head room over the top (0.10 m)", "table", 1.36)
    marker = Refusal("phase 'grab' needs 0.93 m (ratio 3.00, allowed 0 to 3)", "marker", 1.43, "pick_up", too_far=True)
    wall = Refusal("too high to vault (more than 2.19 m)", "wall", 0.7)
    assert best([table, marker]) is marker and best([table, wall]) is wall
    jump = Refusal("too high to jump onto (1.60 m > 0.90 m)", "marker", 1.44, "jump_onto")
    joined = best([jump, marker])   # both about the marker: joined, the one closer offers first, and still too far
    assert joined.too_far and joined.reason == marker.reason + "; " + jump.reason
    assert best([marker, Interaction("vault", None, [], 1.0, 1.0, None, None, None, "crate", 1.9)]).node == "crate"


@pytest.mark.parametrize("h", [35.0, -120.0])
def test_turned_ledges_agree_with_the_warper_at_the_characters_heading(rig, warp_assets, assets, h):
    """The ledge and the character both turned by `h`: the same answers as facing +Y."""
    actor, warper = rig
    actor.setH(h)
    try:
        answers = []
        for distance in (0.5, 1.2):
            root = level()
            prism(root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
            turned = root.attachNewNode("turned")
            turned.setH(h)
            prism(turned, "ledge", box_profile(DEPTH, HEIGHT), 3.0, pos=(0, distance + DEPTH / 2, 0))
            found = MantleProvider(SceneProbe.from_geometry(root), assets).find(actor)
            edge, stand = (root.getRelativePoint(turned, target.pos) for target in ledge_targets(HEIGHT, distance))
            try:
                warper.check(warp_assets["mantle"], [WarpTarget(edge, h=h), WarpTarget(stand, h=h)])
                expected = None
            except WarpRefused as refused:
                expected = str(refused)
            if expected is None:
                assert isinstance(found, Interaction), (distance, found)
            else:
                assert isinstance(found, Refusal), (distance, found)
                same_reason(found.reason, expected)
            answers.append(bool(found))
        assert answers == [True, False]
    finally:
        actor.setH(0.0)
