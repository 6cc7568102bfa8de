"""The report's `asset` (docs/design.md 8) is the character file's name of the asset played, not its clip:
two assets on one clip (the mannequin's jump_onto and jump_gap on running_jump) stay apart, and a
mirrored twin is named by its source (issue 27). Oracle: the character file's and the assets' own JSON."""
import json

import pytest

from motionwarp import WarpAsset

from .conftest import SAMPLES
from .test_demo_hud import demo  # noqa: F401 (a fixture: the demo on the sample course)


def test_each_asset_is_named_as_the_character_file_lists_it(demo):
    listed = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())["warp_assets"]
    clips = {name: json.loads((SAMPLES / "assets" / f"{name}.warp.json").read_text())["clip"] for name in listed}
    assert clips["jump_onto"] == clips["jump_gap"]   # the case a clip's name cannot tell apart
    assert [demo.asset_name(demo.assets[name]) for name in listed] == listed


def test_a_mirrored_twin_or_a_copy_is_named_by_its_file_and_a_stranger_is_refused(demo):
    vault = demo.assets["vault"]
    assert demo.asset_name(vault.mirrored()) == "vault"
    assert demo.asset_name(WarpAsset.load(vault.path)) == "vault"
    data = json.loads((SAMPLES / "assets" / "vault.warp.json").read_text())
    stranger = WarpAsset.from_dict({**data, "model": str(SAMPLES / "assets" / data["model"])})   # from no file
    with pytest.raises(ValueError, match="none of the character's warp assets"):
        demo.asset_name(stranger)
