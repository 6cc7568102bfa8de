"""Traversal kinds beyond vault and mantle (docs/design.md 5.1): what each needs, checked with field
paths, and what survives saving. The oracle is the table in the design, written out here."""
import copy

import pytest

from motionwarp import AssetError
from motionwarp.warp.assetdata import Traversal, parse_asset

#: docs/design.md 5.1: kind -> (phases it needs, has a depth, height may be negative, more phases allowed).
DESIGN = {"vault": (3, True, False, False), "mantle": (1, True, False, False),
          "jump_gap": (2, True, True, False), "jump_onto": (2, True, False, False), "jump_over": (3, True, False, False),
          "sit": (1, False, True, True), "pick_up": (1, False, True, True), "use": (1, False, True, True)}
#: docs/design.md 5.1: the phases a kind may add after its own (the mantle's stand on top).
OPTIONAL = {"mantle": 1}


def asset(kind, phases, **traversal):
    data = {"format": "motionwarp.asset/1", "model": "m.glb", "clip": "c", "root_joint": "root",
            "phases": [{"name": f"p{i}", "start": i * 0.5, "end": i * 0.5 + 0.4} for i in range(phases)],
            "traversal": {"kind": kind, "height": [0.1, 0.9], **traversal}}
    if DESIGN[kind][1] and "depth" not in traversal:
        data["traversal"]["depth"] = [0.0, 1.0]
    return data


def refused(data):
    with pytest.raises(AssetError) as caught:
        parse_asset(data, "k.warp.json")
    return caught.value


@pytest.mark.parametrize("kind", sorted(DESIGN))
def test_each_kind_loads_with_the_phases_it_needs_and_saves_back(kind):
    phases, _, _, _ = DESIGN[kind]
    data = asset(kind, phases, distance=[0.5, 2.5])
    parsed = parse_asset(copy.deepcopy(data), "k.warp.json")
    assert parsed.traversal.kind == kind and parsed.traversal.distance == (0.5, 2.5)
    assert parsed.to_dict()["traversal"] == data["traversal"]


@pytest.mark.parametrize("kind", sorted(DESIGN))
def test_a_kind_with_too_few_phases_or_too_many_is_refused_naming_the_kind(kind):
    phases, _, _, more = DESIGN[kind]
    error = refused(asset(kind, phases - 1)) if phases > 1 else None
    if error is not None:
        assert error.field == "traversal.kind" and f"a {kind} needs" in error.expected
    optional = OPTIONAL.get(kind, 0)
    if optional:
        assert parse_asset(asset(kind, phases + optional), "k.warp.json").traversal.kind == kind
    if more:
        assert parse_asset(asset(kind, phases + 1), "k.warp.json").traversal.kind == kind
    else:
        error = refused(asset(kind, phases + optional + 1))
        assert error.field == "traversal.kind" and f"{phases} phase(s)" in error.expected
        assert f"the asset has {phases + optional + 1}" in error.expected


@pytest.mark.parametrize("kind", sorted(DESIGN))
def test_depth_is_required_where_the_kind_has_one_and_refused_where_it_has_none(kind):
    _, has_depth, _, _ = DESIGN[kind]
    data = asset(kind, DESIGN[kind][0])
    if has_depth:
        del data["traversal"]["depth"]
        error = refused(data)
        assert error.field == "traversal.depth" and "missing" in error.expected
    else:
        data["traversal"]["depth"] = [0, 1]
        error = refused(data)
        assert error.field == "traversal.depth" and f"a {kind} has no depth" in error.expected


@pytest.mark.parametrize("kind", sorted(DESIGN))
def test_a_negative_height_is_allowed_only_where_the_target_may_be_below_the_feet(kind):
    _, _, signed, _ = DESIGN[kind]
    data = asset(kind, DESIGN[kind][0])
    data["traversal"]["height"] = [-0.5, 0.2]
    if signed:
        assert parse_asset(data, "k.warp.json").traversal.height == (-0.5, 0.2)
    else:
        error = refused(data)
        assert error.field == "traversal.height" and "0 <= low <= high" in error.expected
    data["traversal"]["height"] = [0.4, 0.2]
    error = refused(data)
    assert error.field == "traversal.height" and "low <= high" in error.expected


@pytest.mark.parametrize("distance, expected", [([2.0, 1.0], "0 <= low <= high"), ([-1, 1], "0 <= low <= high"),
                                                ([1], "two finite numbers"), ("far", "two finite numbers")])
def test_a_bad_distance_names_its_field(distance, expected):
    error = refused(asset("sit", 1, distance=distance))
    assert error.field == "traversal.distance" and expected in error.expected


@pytest.mark.parametrize("distance, inside", [(0.5, True), (2.5, True), (0.4999, False), (2.5001, False)])
def test_a_distance_range_includes_both_ends(distance, inside):
    assert Traversal("sit", (0.3, 0.6), distance=(0.5, 2.5)).reaches(distance) is inside
    assert Traversal("sit", (0.3, 0.6)).reaches(distance)  # no range: anywhere the provider reaches


def test_an_unknown_traversal_key_is_still_refused():
    error = refused(asset("use", 1, speed=2))
    assert error.field == "traversal.speed" and "unknown key" in error.expected
