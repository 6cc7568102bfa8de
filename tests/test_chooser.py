"""InteractionChooser (docs/design.md 7): every provider is asked, the best answer offered: the
nearest Interaction (the earlier provider within 5 cm), else the nearest refusal that names a distance."""
import pytest
from panda3d.core import NodePath, Point3

from motionwarp import (Interaction, InteractionChooser, JumpProvider, MarkerProvider, Refusal, SceneProbe,
                        TraversalProvider, UsageError)
from motionwarp.scene.markers import MARKER_TAG

from .marker_rigs import write_jump, write_rigs
from .obstacles import box_profile, level, prism


class Fixed:
    """A provider that always gives `answer` (the chooser only reads find_at)."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def find_at(self, pos, h):
        self.asked.append((tuple(pos), h))
        return self.answer


def interaction(kind, distance):
    return Interaction(kind, None, [], 0.0, 0.0, Point3(), None, None, None, distance)


@pytest.mark.parametrize("answers, expected", [
    ([interaction("vault", 1.5), interaction("use", 1.0)], 1),             # the nearest
    ([interaction("vault", 1.0), interaction("use", 1.04)], 0),            # within 5 cm: the order given
    ([interaction("vault", 1.06), interaction("use", 1.0)], 1),            # beyond 5 cm: the nearest
    ([Refusal("too high", None, 1.2), interaction("sit", 1.9)], 1),        # any interaction beats a refusal
    ([Refusal("nothing"), Refusal("too far", None, 2.4), Refusal("too high", None, 1.1)], 2),
    ([Refusal("nothing a"), Refusal("nothing b")], 0),                     # no distance anywhere: the first
])
def test_the_best_answer_is_the_nearest_interaction_else_the_nearest_refusal(answers, expected):
    providers = [Fixed(answer) for answer in answers]
    chooser = InteractionChooser(providers)
    assert chooser.find_at(Point3(1, 2, 0), 30.0) is answers[expected]
    assert all(p.asked == [((1.0, 2.0, 0.0), 30.0)] for p in providers)     # every provider was asked
    assert chooser.answers == answers


@pytest.mark.parametrize("reasons, expected", [
    (["nothing to vault or mantle in front", "nothing to jump in front", "nothing to interact with in front"],
     "nothing to vault, mantle, jump or interact with in front"),
    (["nothing to jump over in front", "nothing to jump onto in front", "nothing to jump over in front"],
     "nothing to jump over or jump onto in front"),                      # each thing named once
    (["nothing to vault in front"], "nothing to vault in front"),
    (["nothing to vault in front", "nothing to jump in front"], "nothing to vault or jump in front"),
    (["nothing to vault in front", "nothing to vault in front"], "nothing to vault in front"),
])
def test_when_nothing_is_met_the_refusal_names_everything_looked_for(reasons, expected):
    found = InteractionChooser([Fixed(Refusal(reason)) for reason in reasons]).find_at(Point3(0, 0, 0), 0.0)
    assert not found and found.reason == expected and found.node is None and found.distance is None


def test_only_traversal_kinds_with_assets_are_said_to_be_looked_for(base):
    """A character that only jumps over things (the Knight) is not told there is nothing to vault."""
    import dataclasses
    from motionwarp import WarpAsset
    from .conftest import ASSETS
    vault = WarpAsset.load(ASSETS / "vault.warp.json")
    hop = dataclasses.replace(vault, traversal=dataclasses.replace(vault.traversal, kind="jump_over"))
    root = level()
    found = TraversalProvider(SceneProbe.from_geometry(root), [hop]).find_at(Point3(0, 0, 0), 0.0)
    assert found.reason == "nothing to jump over in front"


def test_answers_about_one_obstacle_rank_in_the_order_given_whatever_their_distance():
    """A vault measured to the crate's face and a jump onto it measured to its take-off 0.5 m before:
    the same crate, so the earlier provider's answer (design 7); another crate 0.5 m nearer wins."""
    crate, near_crate = NodePath("crate"), NodePath("near crate")
    vault = Interaction("vault", None, [], 1.0, 0.6, Point3(), None, None, crate, 1.5)
    onto = Interaction("jump_onto", None, [], 1.0, 0.8, Point3(), None, None, crate, 1.0)
    assert InteractionChooser([Fixed(vault), Fixed(onto)]).find_at(Point3(0, 0, 0), 0.0) is vault
    assert InteractionChooser([Fixed(onto), Fixed(vault)]).find_at(Point3(0, 0, 0), 0.0) is onto
    other = Interaction("jump_onto", None, [], 1.0, 0.8, Point3(), None, None, near_crate, 1.0)
    assert InteractionChooser([Fixed(vault), Fixed(other)]).find_at(Point3(0, 0, 0), 0.0) is other


def test_refusals_of_one_obstacle_name_every_reason():
    """Two providers refusing the same node within 5 cm: one refusal with both reasons (as
    TraversalProvider joins its own) and both's numbers; another node, or farther, is left alone."""
    crate, wall = NodePath("crate"), NodePath("wall")
    over = Refusal("too high to jump over (1.60 m > 1.10 m)", crate, 2.0, "jump_over", {"height": 1.6, "distance": 2.0})
    onto = Refusal("too high to jump onto (1.60 m > 1.50 m)", crate, 2.03, "jump_onto", {"depth": 0.8, "distance": 2.03})
    found = InteractionChooser([Fixed(over), Fixed(onto)]).find_at(Point3(0, 0, 0), 0.0)
    assert found.reason == "too high to jump over (1.60 m > 1.10 m) or jump onto (1.60 m > 1.50 m)"
    assert found.node == crate and found.distance == 2.0   # the nearest's, and its numbers where both have one
    assert found.kind == "jump_over" and found.numbers == {"height": 1.6, "depth": 0.8, "distance": 2.0}
    other = Refusal("too high to jump onto (1.60 m > 1.50 m)", wall, 2.0)
    assert InteractionChooser([Fixed(over), Fixed(other)]).find_at(Point3(0, 0, 0), 0.0) is over
    farther = Refusal("too high to jump onto (1.60 m > 1.50 m)", crate, 2.06)
    assert InteractionChooser([Fixed(over), Fixed(farther)]).find_at(Point3(0, 0, 0), 0.0) is over
    stretched = Refusal("phase 'ledge_top' needs 2.00 m where the clip moves 0.50 m", crate, 2.0, "jump_over", too_far=True)
    joined = InteractionChooser([Fixed(stretched), Fixed(onto)]).find_at(Point3(0, 0, 0), 0.0)
    assert joined.too_far and joined.reason.startswith("phase 'ledge_top'")   # walking closer may still offer it


def test_the_actor_is_asked_about_in_the_chooser_s_space_at_its_scale():
    """`space` (a game's level root) is where positions and headings are read, and the actor's scale is
    passed on; without it, the actor's top node."""
    class Scaled(Fixed):
        def find_at(self, pos, h, scale=1.0):
            self.asked.append((tuple(round(v, 6) for v in pos), round(h, 6), round(scale, 6)))
            return self.answer
    top = NodePath("top")
    level = top.attachNewNode("level")
    level.setPos(10, 0, 0)
    level.setH(90)
    actor = level.attachNewNode("actor")
    actor.setPos(1, 2, 0)
    actor.setScale(1.5)
    provider = Scaled(Refusal("nothing to vault in front"))
    InteractionChooser([provider], space=level).find(actor)
    InteractionChooser([provider]).find(actor)
    assert provider.asked == [((1.0, 2.0, 0.0), 0.0, 1.5), ((8.0, 1.0, 0.0), 90.0, 1.5)]


def test_bad_providers_are_a_usage_error():
    with pytest.raises(UsageError, match="find_at"):
        InteractionChooser([])
    with pytest.raises(UsageError, match="find_at"):
        InteractionChooser([object()])


@pytest.fixture(scope="module")
def rig_assets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chooser_rigs")
    return list(write_rigs(folder).values()) + list(write_jump(folder).values())


@pytest.mark.parametrize("at, kind", [((0.9, 1.0), "use"), ((1.3, 1.9), "vault")])
def test_real_providers_the_marker_or_the_box_whichever_is_nearer(base, warp_assets, rig_assets, at, kind):
    root = level()
    root.reparentTo(base.render)
    prism(root, "ground", box_profile(12.0, 1.0), 12.0, pos=(0, 0, -1.0))
    prism(root, "crate", box_profile(0.6, 1.0), 1.2, pos=(0, 1.5 + 0.3, 0))
    lever = root.attachNewNode("lever")
    lever.setPos(*at, 1.1)
    lever.setTag(MARKER_TAG, "use")
    probe = SceneProbe.from_geometry(root)
    assets = list(warp_assets.values()) + rig_assets
    chooser = InteractionChooser([TraversalProvider(probe, assets), JumpProvider(probe, assets),
                                  MarkerProvider(probe, root, assets, reach=3.0)])
    found = chooser.find_at(Point3(0, 0, 0), 0.0)
    assert found and found.kind == kind
    assert [bool(answer) for answer in chooser.answers] == [True, False, True]   # the crate is too shallow to jump onto
