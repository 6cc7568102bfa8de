"""The KayKit Knight re-exported under scaled and turned armature nodes (tests/scaled_rigs.py: data
in centimetres under an armature scaled 0.01, x0.01 under one scaled 100, Z-up, both, moved mesh
nodes) is the Knight to `inspect` and `author` (docs/design.md 12): its height, units, facing, every
clip's role, loop, speed and contacts, the character file and the jump assets are the Knight's own.
Skipped when the rig is not beside the project."""
import pytest

from motionwarp.tools.author import asset_data
from motionwarp.tools.character_writer import character_data
from motionwarp.tools.inspector import Model, report

from . import scaled_rigs
from .pose_oracle import KNIGHT

pytestmark = pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")
#: Where a length read through the armature may differ from the Knight's (metres): float32 data.
LENGTH = 1e-4


@pytest.fixture(scope="module")
def knight():
    return Model(str(KNIGHT))


@pytest.fixture(scope="module", params=sorted(scaled_rigs.VARIANTS))
def wrapped(request, tmp_path_factory):
    path = scaled_rigs.write_variant(str(KNIGHT), request.param, tmp_path_factory.mktemp("wrapped") / "knight.glb")
    return Model(str(path))


def test_height_units_and_facing_are_the_knights(knight, wrapped):
    assert wrapped.scale == 1.0
    assert wrapped.height == pytest.approx(knight.height, abs=LENGTH)
    assert wrapped.skeleton.height == pytest.approx(knight.skeleton.height, abs=LENGTH)
    assert wrapped.turn == knight.turn == 180.0
    assert wrapped.facing[1] == knight.facing[1]
    assert report(wrapped).splitlines()[2] == report(knight).splitlines()[2] == "height: 2.45 m"


def test_every_clip_reads_as_the_knights(knight, wrapped):
    for clip in knight.bundles:
        mine, theirs = wrapped.facts(clip), knight.facts(clip)
        assert (wrapped.role(clip), mine.loops) == (knight.role(clip), theirs.loops), clip
        assert mine.speed == pytest.approx(theirs.speed, abs=LENGTH), clip
        assert mine.travel == pytest.approx(theirs.travel, abs=LENGTH), clip
        assert [(p.limb.role, p.first, p.last) for p in mine.contacts] == \
            [(p.limb.role, p.first, p.last) for p in theirs.contacts], clip


def test_the_character_file_and_jump_assets_are_the_knights(knight, wrapped, tmp_path):
    out = tmp_path / "characters" / "knight.json"
    mine, notes, problems = character_data(wrapped, out)
    theirs, their_notes, their_problems = character_data(knight, out)
    assert problems == their_problems == []
    assert notes == their_notes
    assert {k: v for k, v in mine.items() if k != "model"} == {k: v for k, v in theirs.items() if k != "model"}
    for kind in ("jump_over", "jump_onto"):
        mine = asset_data(wrapped, "Jump_Full_Long", kind, tmp_path / "a.warp.json")
        theirs = asset_data(knight, "Jump_Full_Long", kind, tmp_path / "a.warp.json")
        assert [(p["name"], p["start"], p["end"]) for p in mine["phases"]] == \
            [(p["name"], p["start"], p["end"]) for p in theirs["phases"]]
        for a, b in zip(mine["phases"], theirs["phases"]):
            assert a["t_offset"] == pytest.approx(b["t_offset"], abs=1e-3)
        assert mine["traversal"]["kind"] == theirs["traversal"]["kind"] == kind
        assert mine["traversal"]["height"] == pytest.approx(theirs["traversal"]["height"], abs=1e-3)
        assert mine["traversal"]["depth"] == pytest.approx(theirs["traversal"]["depth"], abs=1e-3)
        assert mine["contacts"] == theirs["contacts"]
