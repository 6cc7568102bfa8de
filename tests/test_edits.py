"""The edit count (motionwarp/base/edits.py) that kept answers compare in place of the values (design 7,
"Kept measurements"): every attribute set and every change of an asset's phase and contact lists is
counted, and a walking-up character's next answer after any such edit is the answer a new provider
gives afresh with the edited data."""
import dataclasses

import pytest
from panda3d.core import Vec3

from motionwarp import MotionWarpSettings, SceneProbe, TraversalProvider, WarpAsset, samples
from motionwarp.base import edits
from motionwarp.base.errors import UsageError
from motionwarp.base.config import ContactIKSettings, ProviderSettings
from motionwarp.scene.measure import facing
from motionwarp.warp.assetdata import Traversal, WarpPhase
from motionwarp.warp.contacts import Contact

from .obstacles import box_profile, level, prism
from .test_walking_up import STEP, CountingProbe, assert_said_alike, said

NAMES = ("vault", "mantle", "mantle_high")


def _assets():
    """The sample assets, loaded for this test alone (edited in place below)."""
    return [WarpAsset.load(samples.folder() / "assets" / f"{name}.warp.json") for name in NAMES]


def _counted(edit, *args):
    """How many edits `edit(*args)` counted."""
    before = edits.count
    edit(*args)
    return edits.count - before


def _phase():
    return WarpPhase("a", 0.1, 0.5, t_offset=[0.0, 0.1, 0.2])


#: Every mutating method of a list, as a user may call it on `asset.phases` or `asset.contacts`.
LIST_EDITS = {
    "append": lambda items: items.append(items[0]),
    "insert": lambda items: items.insert(0, items[0]),
    "item set": lambda items: items.__setitem__(0, items[-1]),
    "slice set": lambda items: items.__setitem__(slice(0, 1), items[:1]),
    "item delete": lambda items: items.__delitem__(0),
    "extend": lambda items: items.extend(items[:1]),
    "pop": lambda items: items.pop(),
    "remove": lambda items: items.remove(items[0]),
    "sort": lambda items: items.sort(key=id),
    "reverse": lambda items: items.reverse(),
    "clear": lambda items: items.clear(),
    "+=": lambda items: items.__iadd__(items[:1]),
    "*=": lambda items: items.__imul__(2),
}


@pytest.mark.parametrize("field", ["phases", "contacts"])
@pytest.mark.parametrize("edit", LIST_EDITS, ids=str)
def test_every_change_of_an_assets_lists_is_counted(field, edit):
    asset = _assets()[0]
    items = getattr(asset, field)
    if not items:
        items.append(Contact("hand", 0.1, 0.2, "target"))
    assert _counted(LIST_EDITS[edit], items) == 1


@pytest.mark.parametrize("make, field, value", [
    (_phase, "end", 0.6), (_phase, "t_offset", (1.0, 0.0, 0.0)), (lambda: Traversal("vault", (0.5, 1.0)), "height", (0.4, 1.0)),
    (lambda: Contact("hand", 0.1, 0.2, "target"), "offset", (0.0, 0.1, 0.0)), (lambda: _assets()[0], "clip", "other"),
    (lambda: _assets()[0], "phases", []), (MotionWarpSettings, "max_stretch", 2.0), (ProviderSettings, "reach", 1.0),
    (ContactIKSettings.from_prc, dataclasses.fields(ContactIKSettings)[0].name, 3)])
def test_every_attribute_set_is_counted_and_making_one_is_not(make, field, value):
    thing = make()
    assert _counted(dataclasses.replace, thing) == 0
    assert _counted(setattr, thing, field, value) == 1
    assert _counted(delattr, thing, field) == 1


def test_tuple_fields_given_lists_are_stored_as_tuples_and_lists_as_counted_copies():
    phase = _phase()
    given = [1.0, 2.0, 3.0]
    phase.r_offset = given
    given.append(4.0)    # the user's list changed afterwards: not the phase's offset
    assert phase.t_offset == (0.0, 0.1, 0.2) and phase.r_offset == (1.0, 2.0, 3.0)
    assert Traversal("vault", [0.5, 1.0], [0.1, 0.2], [0.0, 2.0]) == Traversal("vault", (0.5, 1.0), (0.1, 0.2), (0.0, 2.0))
    assert type(Contact("hand", 0.1, 0.2, "target", offset=Vec3(1, 2, 3)).offset) is tuple
    asset = _assets()[0]
    phases = list(asset.phases)
    asset.phases = phases
    assert asset.phases is not phases and _counted(asset.phases.pop) == 1
    assert dataclasses.replace(asset).phases == asset.phases


def _vault_higher(assets, provider):
    assets[0].traversal.height = [1.2, 1.6]         # a list: the crate (1.0 m) no longer fits the vault


def _vault_offset(assets, provider):
    assets[0].phases[0].t_offset = (0.0, -4.0, 0.0)  # the hand's goal 4 m back: the warper refuses


def _vault_phase_replaced(assets, provider):
    assets[0].phases[1] = dataclasses.replace(assets[0].phases[1], t_offset=(0.0, -4.0, 0.0))


def _vault_phase_slice(assets, provider):
    assets[0].phases[:1] = [dataclasses.replace(assets[0].phases[0], t_offset=(4.0, 0.0, 0.0))]


def _given_assets_changed(assets, provider):
    del provider._given[0]     # the list of assets given to the provider: the vault no longer offered


def _reach(assets, provider):
    for kind in provider.providers:
        kind.settings.reach = 0.5


def _no_stretch(assets, provider):
    provider.warp_settings.max_stretch = 1.0
    provider.warp_settings.min_stretch = 1.0


def _fresh(probe, provider):
    """A new provider over a new probe with `provider`'s assets, warp settings and settings' values."""
    values = dataclasses.asdict(provider.providers[0].settings)
    return TraversalProvider(SceneProbe(probe.world, probe.mask, static=True), provider._given,
                             warp_settings=provider.warp_settings, **values)


@pytest.mark.parametrize("edit", [_vault_higher, _vault_offset, _vault_phase_replaced, _vault_phase_slice,
                                  _given_assets_changed, _reach, _no_stretch],
                         ids=lambda edit: edit.__name__.strip("_"))
def test_an_edit_between_two_frames_of_walking_up_is_seen_in_the_next_answer(edit):
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    prism(root, "crate", box_profile(0.6, 1.0), 3.0, pos=(0, 3.0, 0))
    static = SceneProbe.from_geometry(root)
    walking = CountingProbe(static.world, static.mask, static=True)
    assets = _assets()
    provider = TraversalProvider(walking, list(assets), warp_settings=MotionWarpSettings.from_prc())
    start, h = root.getRelativePoint(root, (0.02, 3.0 - 1.6, 0)), 0.0
    before, quiet = None, 0
    for frame in range(30):
        if frame == 15:
            before = said(provider.find_at(start + facing(h) * (STEP * frame), h))
            edit(assets, provider)
        pos = start + facing(h) * (STEP * frame)
        rays = walking.rays
        kept = provider.find_at(pos, h)
        quiet += walking.rays == rays
        assert_said_alike(kept, _fresh(static, provider).find_at(pos, h), f"frame {frame}")
        if frame == 15:
            assert said(kept) != before    # the edit changes the answer: a test that can fail
    assert quiet >= 15    # the kept path was taken


def test_an_edit_of_the_settings_is_seen_beyond_reach():
    """Beyond `reach` the provider measures with settings of its own made from its settings (`_far_settings`):
    an edit of them is seen at the next query too, even standing still."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    prism(root, "crate", box_profile(0.6, 1.0), 3.0, pos=(0, 3.0, 0))
    static = SceneProbe.from_geometry(root)
    provider = TraversalProvider(SceneProbe(static.world, static.mask, static=True), _assets(),
                                 warp_settings=MotionWarpSettings.from_prc(), reach=1.0)
    pos, h = root.getRelativePoint(root, (0.02, 0.9, 0)), 0.0
    before = provider.find_at(pos, h)
    assert not before and before.too_far is not None, before.reason
    for kind in provider.providers:   # the face looked for above the crate's top: nothing to meet
        kind.settings.face_low, kind.settings.face_high = 1.2, 1.3
    after = provider.find_at(pos, h)
    assert_said_alike(after, _fresh(static, provider).find_at(pos, h), "standing still")
    assert said(after) != said(before)


def test_a_phase_removed_in_place_is_a_clear_error_not_a_traceback():
    """A vault asset left with two phases (the loader refuses such a file) is refused by the provider in
    one line naming the file and the field, at the next query after the edit."""
    root = level()
    prism(root, "crate", box_profile(0.6, 1.0), 3.0, pos=(0, 3.0, 0))
    assets = _assets()
    provider = TraversalProvider(SceneProbe.from_geometry(root), assets, warp_settings=MotionWarpSettings.from_prc())
    provider.find_at(Vec3(0, 1.4, 0), 0.0)
    del assets[0].phases[2]
    with pytest.raises(UsageError, match=r"vault\.warp\.json: traversal\.kind: a vault needs 3 phase\(s\) "
                                         r"\(close edge, far edge, landing\), the asset has 2 \(its phases were edited in place\)"):
        provider.find_at(Vec3(0, 1.4, 0), 0.0)
