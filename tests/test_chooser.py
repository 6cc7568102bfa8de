"""InteractionChooser (docs/design.md 7): every provider is asked, the best answer offered: the
nearest Interaction (the earlier provider within 5 cm), else the nearest refusal that names a distance."""
import dataclasses

import pytest
from panda3d.core import NodePath, Point3

from motionwarp import (Interaction, InteractionChooser, JumpProvider, MarkerProvider, Refusal, SceneProbe,
                        TraversalProvider, UsageError)
from motionwarp.scene.markers import MARKER_TAG
from motionwarp.scene.providers import nothing_in_front
from motionwarp.warp.refusal import Cause

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


@pytest.mark.parametrize("looked_for, expected", [
    ([("vault", "mantle"), ("jump",), ("interact with",)], "nothing to vault, mantle, jump or interact with in front"),
    ([("jump over",), ("jump onto",), ("jump over",)], "nothing to jump over or jump onto in front"),   # each once
    ([("vault",)], "nothing to vault in front"),
    ([("vault",), ("jump",)], "nothing to vault or jump in front"),
    ([("vault",), ("vault",)], "nothing to vault in front"),
])
def test_when_nothing_is_met_the_refusal_names_everything_looked_for(looked_for, expected):
    """Made from the causes' data (the kinds each looked for), not from their sentences."""
    refusals = [Refusal(causes=(nothing_in_front(verbs),)) for verbs in looked_for]
    found = InteractionChooser([Fixed(refusal) for refusal in refusals]).find_at(Point3(0, 0, 0), 0.0)
    assert not found and found.reason == expected and found.node is None and found.distance is None
    assert found.causes[0].looked_for == tuple(dict.fromkeys(v for verbs in looked_for for v in verbs))


def test_a_game_s_own_sentence_is_not_parsed_for_what_it_looked_for():
    """A refusal given only as text ("nothing to vault in front" from a game's provider) is one cause with no
    data: the first provider's refusal is shown as it is, nothing read back out of its words."""
    own = Refusal("nothing to vault in front")
    found = InteractionChooser([Fixed(own), Fixed(Refusal(causes=(nothing_in_front(("jump",)),)))]).find_at(
        Point3(0, 0, 0), 0.0)
    assert found is own and own.causes == (Cause("nothing to vault in front"),)


def test_only_traversal_kinds_with_assets_are_said_to_be_looked_for(base):
    """A character that only jumps over things (the Knight) is not told there is nothing to vault."""
    from motionwarp import WarpAsset
    from .conftest import ASSETS
    vault = WarpAsset.load(ASSETS / "vault.warp.json")
    hop = dataclasses.replace(vault, traversal=dataclasses.replace(vault.traversal, kind="jump_over"))
    root = level()
    found = TraversalProvider(SceneProbe.from_geometry(root), [hop]).find_at(Point3(0, 0, 0), 0.0)
    assert found.reason == "nothing to jump over in front"


def test_answers_about_one_obstacle_rank_by_kind_whatever_their_distance_or_order():
    """A vault measured to the crate's face and a jump onto it measured to its take-off 0.5 m before:
    the same crate, so the vault (design 7, KIND_ORDER: over before onto), whichever provider is asked
    first; another crate 0.5 m nearer wins; a game's own kinds about one node rank in provider order."""
    crate, near_crate = NodePath("crate"), NodePath("near crate")
    vault = Interaction("vault", None, [], 1.0, 0.6, Point3(), None, None, crate, 1.5)
    onto = Interaction("jump_onto", None, [], 1.0, 0.8, Point3(), None, None, crate, 1.0)
    assert InteractionChooser([Fixed(vault), Fixed(onto)]).find_at(Point3(0, 0, 0), 0.0) is vault
    assert InteractionChooser([Fixed(onto), Fixed(vault)]).find_at(Point3(0, 0, 0), 0.0) is vault
    other = Interaction("jump_onto", None, [], 1.0, 0.8, Point3(), None, None, near_crate, 1.0)
    assert InteractionChooser([Fixed(vault), Fixed(other)]).find_at(Point3(0, 0, 0), 0.0) is other
    roll = Interaction("roll", None, [], 1.0, 0.6, Point3(), None, None, crate, 1.5)
    slide = Interaction("slide", None, [], 1.0, 0.6, Point3(), None, None, crate, 1.2)
    assert InteractionChooser([Fixed(roll), Fixed(slide)]).find_at(Point3(0, 0, 0), 0.0) is roll
    assert InteractionChooser([Fixed(roll), Fixed(vault)]).find_at(Point3(0, 0, 0), 0.0) is vault


def test_a_marker_on_a_prop_wins_over_traversing_the_prop():
    """The cup marked pick_up on the table (the marker a child of the table's mesh node): its pick up is
    offered, not the vault over the table, whichever is nearer or asked first; a marker on another prop
    at the same distance is a tie between two things, and the earlier provider wins."""
    table = NodePath("table")
    mesh = table.attachNewNode("table_mesh")
    cup = table.attachNewNode("cup")
    vault = Interaction("vault", None, [], 0.8, 0.8, Point3(), None, None, mesh, 0.96)
    pick = Interaction("pick_up", None, [], 0.9, 0.0, Point3(), None, None, cup, 1.3, prop=table)
    assert InteractionChooser([Fixed(vault), Fixed(pick)]).find_at(Point3(0, 0, 0), 0.0) is pick
    assert InteractionChooser([Fixed(pick), Fixed(vault)]).find_at(Point3(0, 0, 0), 0.0) is pick
    bench = NodePath("bench")
    elsewhere = Interaction("pick_up", None, [], 0.9, 0.0, Point3(), None, None, bench.attachNewNode("item"), 1.0,
                            prop=bench)
    assert InteractionChooser([Fixed(vault), Fixed(elsewhere)]).find_at(Point3(0, 0, 0), 0.0) is vault


def test_a_kind_first_in_order_only_too_far_is_named_before_a_later_kind_s_offer():
    """2.3 m from a crate a vault fits, beyond the traversal's 2 m reach, while the jump provider's longer
    reach offers to jump onto it: the chooser says what the level means ("too far to vault"), and the
    jump onto another crate, or a vault refused for good, leaves the jump onto offered."""
    crate = NodePath("crate")
    far = Refusal.of(Cause("too far", "vault", 2.3, 2.0, name="distance", too_far=True), crate, 2.3, "vault")
    onto = Interaction("jump_onto", None, [], 0.9, 0.8, Point3(), None, None, crate, 1.6)
    found = InteractionChooser([Fixed(far), Fixed(onto)]).find_at(Point3(0, 0, 0), 0.0)
    assert not found and found.reason == "too far to vault (2.30 m > 2.00 m)" and found.too_far
    assert found.numbers == {"distance": 2.3}
    high = Refusal.of(Cause("too high", "vault", 1.6, 1.5, name="height"), crate, 2.3, "vault")
    assert InteractionChooser([Fixed(high), Fixed(onto)]).find_at(Point3(0, 0, 0), 0.0) is onto
    other = dataclasses.replace(onto, node=NodePath("other crate"))
    assert InteractionChooser([Fixed(far), Fixed(other)]).find_at(Point3(0, 0, 0), 0.0) is other


def test_refusals_of_one_obstacle_name_every_reason():
    """Two providers refusing the same node within 5 cm: one refusal with both causes (joined from their
    data as TraversalProvider joins its own) and both's numbers; another node, or farther, is left alone."""
    crate, wall = NodePath("crate"), NodePath("wall")
    over = Refusal.of(Cause("too high", "jump over", 1.6, 1.1, name="height"), crate, 2.0, "jump_over",
                      {"distance": 2.0})
    onto = Refusal.of(Cause("too high", "jump onto", 1.6, 1.5), crate, 2.03, "jump_onto", {"depth": 0.8, "distance": 2.03})
    found = InteractionChooser([Fixed(over), Fixed(onto)]).find_at(Point3(0, 0, 0), 0.0)
    assert found.reason == "too high to jump over (1.60 m > 1.10 m) or jump onto (1.60 m > 1.50 m)"
    assert found.causes == over.causes + onto.causes
    assert found.node == crate and found.distance == 2.0   # the nearest's, and its numbers where both have one
    assert found.kind == "jump_over" and found.numbers == {"height": 1.6, "depth": 0.8, "distance": 2.0}
    other = Refusal.of(Cause("too high", "jump onto", 1.6, 1.5), wall, 2.0)
    assert InteractionChooser([Fixed(over), Fixed(other)]).find_at(Point3(0, 0, 0), 0.0) is over
    farther = Refusal.of(Cause("too high", "jump onto", 1.6, 1.5), crate, 2.06)
    assert InteractionChooser([Fixed(over), Fixed(farther)]).find_at(Point3(0, 0, 0), 0.0) is over
    stretched = Refusal.of(Cause("phase 'ledge_top' needs 2.00 m where the clip moves 0.50 m", value=4.0, limit=3.0,
                                 unit="", name="stretch", detail="ratio 4.00, allowed 0 to 3", too_far=True),
                           crate, 2.0, "jump_over")
    joined = InteractionChooser([Fixed(onto), Fixed(stretched)]).find_at(Point3(0, 0, 0), 0.0)
    assert joined.too_far and joined.reason == stretched.reason + "; " + onto.reason   # the one closer offers, first


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


def test_just_out_of_reach_the_vault_is_named_before_another_kinds_reason(base, warp_assets, rig_assets):
    """2.3 m from a crate's face (beyond the traversal's 2 m reach, within the jump provider's 3.5 m) the
    crate's size fits the vault: the prompt says "too far to vault (2.30 m > 2.00 m)" first, whatever the
    jump provider says of it; 1.5 m away the vault is offered. Distances from the test's own crate."""
    root = level()
    root.reparentTo(base.render)
    prism(root, "ground", box_profile(12.0, 1.0), 12.0, pos=(0, 0, -1.0))
    prism(root, "crate", box_profile(0.6, 1.0), 1.2, pos=(0, 1.5 + 0.3, 0))   # its face at y = 1.5
    probe = SceneProbe.from_geometry(root)
    assets = list(warp_assets.values()) + rig_assets
    chooser = InteractionChooser([TraversalProvider(probe, assets), JumpProvider(probe, assets, reach=3.5)])
    found = chooser.find_at(Point3(0, -0.8, 0), 0.0)
    assert not found and found.too_far and found.kind == "vault" and found.node.getName() == "crate"
    assert found.reason.startswith("too far to vault (2.30 m > 2.00 m)")
    assert found.causes[0] == Cause("too far", "vault", pytest.approx(2.3, abs=0.01), 2.0, name="distance",
                                    too_far=True)
    assert found.numbers["height"] == pytest.approx(1.0, abs=0.01) and found.numbers["depth"] == pytest.approx(0.6, abs=0.01)
    assert chooser.find_at(Point3(0, 0, 0), 0.0).kind == "vault"
    assert TraversalProvider(probe, assets).find_at(Point3(0, -1.7, 0), 0.0).reason == "too far to vault (3.20 m > 2.00 m)"
    beyond = TraversalProvider(probe, assets).find_at(Point3(0, -2.6, 0), 0.0)   # 4.1 m: beyond the 4 m face sweep
    assert beyond.node is None and beyond.reason.startswith("nothing to vault")


def test_within_the_tie_the_earlier_provider_wins_though_the_later_is_nearer_about_another_node():
    """The crate's vault 1.03 m away (asked first) and a lever's use 1.00 m away (asked second, another
    node): within 5 cm, so the order given; 6 cm nearer, the lever."""
    crate, lever = NodePath("crate"), NodePath("lever")
    vault = Interaction("vault", None, [], 1.0, 0.6, Point3(), None, None, crate, 1.03)
    use = Interaction("use", None, [], 1.1, 0.0, Point3(), None, None, lever, 1.0)
    assert InteractionChooser([Fixed(vault), Fixed(use)]).find_at(Point3(0, 0, 0), 0.0) is vault
    nearer = dataclasses.replace(use, distance=0.97)
    assert InteractionChooser([Fixed(vault), Fixed(nearer)]).find_at(Point3(0, 0, 0), 0.0) is nearer
    assert InteractionChooser([Fixed(use), Fixed(vault)]).find_at(Point3(0, 0, 0), 0.0) is use


@pytest.mark.parametrize("on_the_table", [True, False])
def test_real_providers_a_marker_on_the_table_is_offered_not_the_vault(base, warp_assets, rig_assets, on_the_table):
    """A 0.8 m table 1.5 m ahead (its face at y = 1.5) with a lever marked on it 1.52 m ahead, 1.0 m up:
    the vault (asked first, the face nearer) and the marker are within the tie; the marker placed on the
    table is offered; the same marker placed loose in the level is another thing, and the vault wins."""
    root = level()
    root.reparentTo(base.render)
    prism(root, "ground", box_profile(12.0, 1.0), 12.0, pos=(0, 0, -1.0))
    table = root.attachNewNode("table")
    prism(table, "top", box_profile(0.8, 0.8), 1.2, pos=(0, 1.5 + 0.4, 0))
    lever = (table if on_the_table else root).attachNewNode("lever")
    lever.setPos(0, 1.52, 1.0)
    lever.setTag(MARKER_TAG, "use")
    probe = SceneProbe.from_geometry(root)
    assets = list(warp_assets.values()) + rig_assets
    chooser = InteractionChooser([TraversalProvider(probe, assets), MarkerProvider(probe, root, assets)])
    found = chooser.find_at(Point3(0, 0, 0), 0.0)
    assert [answer.kind for answer in chooser.answers] == ["vault", "use"]
    assert abs(chooser.answers[0].distance - chooser.answers[1].distance) <= 0.05
    assert found.kind == ("use" if on_the_table else "vault")
    assert (found.node == lever) == on_the_table


@pytest.mark.parametrize("h", [0.0, 37.0, 90.0])
def test_walking_up_to_a_crate_both_vault_and_jump_onto_fit_the_vault_is_offered(base, warp_assets, warp_asset_dir, h):
    """A 0.9 m crate 1.0 m deep fits the mannequin's vault (0.5 to 1.5 m high, up to 1.2 m deep) and its
    jump onto (0.3 to 0.9 m high, 0.7 m deep or more: the assets' own ranges). Walking up from 4 m with
    the demo's reaches (2 m, the jumps 3.5 m), at any heading, the chooser never offers the jump onto:
    first "too far to vault", then the vault."""
    from motionwarp.scene.measure import facing
    root = level()
    root.reparentTo(base.render)
    prism(root, "ground", box_profile(20.0, 1.0), 20.0, pos=(0, 0, -1.0))
    turned = root.attachNewNode("turned")
    turned.setH(h)
    prism(turned, "crate", box_profile(1.0, 0.9), 1.2, pos=(0, 0.5, 0))   # its face on the line y = 0
    probe = SceneProbe.from_geometry(root)
    from motionwarp import WarpAsset
    assets = list(warp_assets.values()) + [WarpAsset.load(warp_asset_dir / "jump_onto.warp.json")]
    assert any(a.traversal.kind == "jump_onto" and a.traversal.fits(0.9, 1.0) for a in assets)
    assert any(a.traversal.kind == "vault" and a.traversal.fits(0.9, 1.0) for a in assets)
    chooser = InteractionChooser([TraversalProvider(probe, assets), JumpProvider(probe, assets, reach=3.5)])
    offered = []
    for step in range(60):
        away = 4.0 - step * 0.05
        pos = -facing(h) * away
        found = chooser.find_at(Point3(pos.x, pos.y, 0), h)
        offered.append(found.kind if found else ("too far" if found.too_far else None))
        if found or found.too_far:
            assert found.kind == "vault", (away, found)
    assert "too far" in offered and offered[-1] == "vault"


def test_the_same_answers_are_not_ranked_again_and_new_ones_are():
    """The chooser ranks again only when some provider's answer is another object (kept answers are the same)."""
    near, far = Refusal.of("near", distance=1.0), Refusal.of("far", distance=2.0)

    class Fixed:
        def __init__(self, answer):
            self.answer = answer

        def find_at(self, pos, h):
            return self.answer

    first, second = Fixed(far), Fixed(near)
    chooser = InteractionChooser([first, second])
    found = chooser.find_at(Point3(0, 0, 0), 0.0)
    assert found.reason == "near" and chooser.find_at(Point3(0, 0, 0), 0.0) is found
    second.answer = Refusal.of("nearer", distance=0.5)
    assert chooser.find_at(Point3(0, 0, 0), 0.0).reason == "nearer"
