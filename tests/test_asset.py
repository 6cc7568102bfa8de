"""Warp asset files: loading computes the phases' root motion; every bad field is named."""
import json
import math
import os
import re

import pytest

from motionwarp import AssetError, WarpAsset
from motionwarp.warp import assetdata, contacts
from motionwarp.warp.assetdata import parse_asset

from .conftest import ASSETS, ROOT
from .gltf_samples import two_bone_quad


@pytest.fixture
def model(tmp_path):
    """A 1 s clip: 2 m forward, up 0.5 m and back down, nothing sideways."""
    times = [0.0, 0.5, 1.0]
    two_bone_quad(tmp_path / "hop.glb", {"hop": [("root", "translation", times, [[0, 0, 0], [0, 1, 0.5], [0, 2, 0]])]})
    return tmp_path


def good():
    return {"format": "motionwarp.asset/1", "model": "hop.glb", "clip": "hop", "root_joint": "root",
            "phases": [{"name": "rise", "start": 0.0, "end": 0.5, "t_offset": [0, -0.1, 0],
                        "r_offset": [0, 0, 0], "min_rate": 0.5, "max_rate": 1.5},
                       {"name": "land", "start": 0.5, "end": 1.0}]}


def write(folder, data, name="hop.warp.json"):
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_load_computes_total_root_motion_per_phase(base, model):
    asset = WarpAsset.load(write(model, good()))
    rise, land = asset.phases
    assert rise.total_root_motion == pytest.approx((0.0, 1.0, 0.5), abs=1e-5)
    assert land.total_root_motion == pytest.approx((0.0, 1.0, 0.5), abs=1e-5)
    assert asset.duration == pytest.approx(1.0)
    assert rise.t_offset == (0.0, -0.1, 0.0) and land.min_rate == 1.0


def test_save_round_trips_and_is_atomic(base, model, monkeypatch):
    path = write(model, good())
    path.chmod(0o640)
    asset = WarpAsset.load(path)
    asset.phases[0].t_offset = (0.0, -0.2, 0.05)
    asset.save()
    assert path.stat().st_mode & 0o777 == 0o640
    again = WarpAsset.load(path)
    assert again.phases[0].t_offset == (0.0, -0.2, 0.05)
    before = path.read_text()

    def broken_replace(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", broken_replace)
    asset.phases[0].t_offset = (9.0, 9.0, 9.0)
    with pytest.raises(OSError):
        asset.save()
    assert path.read_text() == before
    assert sorted(p.name for p in model.iterdir()) == ["hop.glb", "hop.warp.json"]


def edit(change):
    data = good()
    change(data)
    return data


BAD = {
    "format": (lambda d: d.update(format="motionwarp.asset/2"), "format: expected 'motionwarp.asset/1'"),
    "unknown top key": (lambda d: d.update(speed=2), "speed: unknown key"),
    "missing clip": (lambda d: d.pop("clip"), "clip: missing"),
    "model not found": (lambda d: d.update(model="nope.glb"), "model: expected a loadable glTF character"),
    "clip not in model": (lambda d: d.update(clip="vault"), "clip: expected a clip of hop.glb: hop"),
    "root joint": (lambda d: d.update(root_joint="pelvis"), "root_joint: expected a joint of hop.glb"),
    "root mode": (lambda d: d.update(root_mode="hips"), "root_mode: expected one of"),
    "phases empty": (lambda d: d.update(phases=[]), "phases: expected a non-empty list"),
    "phase not object": (lambda d: d["phases"].__setitem__(0, 3), r"phases\[0\]: expected a JSON object"),
    "phase unknown key": (lambda d: d["phases"][0].update(speed=1), r"phases\[0\].speed: unknown key"),
    "phase missing end": (lambda d: d["phases"][1].pop("end"), r"phases\[1\].end: missing"),
    "name empty": (lambda d: d["phases"][0].update(name=""), r"phases\[0\].name: expected a non-empty string"),
    "start not number": (lambda d: d["phases"][0].update(start="0.1"), r"phases\[0\].start: expected a finite number"),
    "start is bool": (lambda d: d["phases"][0].update(start=True), r"phases\[0\].start: expected a finite number"),
    "start outside clip": (lambda d: d["phases"][0].update(start=-0.1), r"phases\[0\].start: expected a time inside the clip"),
    "end outside clip": (lambda d: d["phases"][1].update(end=1.5), r"phases\[1\].end: expected a time inside the clip \(0 to 1.000 s\)"),
    "end before start": (lambda d: d["phases"][0].update(end=0.0), r"phases\[0\].end: expected a time after start"),
    "overlap": (lambda d: d["phases"][1].update(start=0.4), r"phases\[1\].start: expected phases in order, not overlapping"),
    "an end past the clip is not named an overlap": (lambda d: d["phases"][0].update(end=5.0),
                                                     r"phases\[0\].end: expected a time inside the clip \(0 to 1.000 s\), got 5.0"),
    "a phase under one clip frame": (lambda d: d["phases"][0].update(end=1e-9),
                                     r"phases\[0\].end: expected a phase at least one clip frame long \(0.0333 s at 30 fps\) "
                                     r"after its start \(0.0\), got 1e-09"),
    "a phase a hair under one frame": (lambda d: d["phases"][1].update(start=0.97),
                                       r"phases\[1\].end: expected a phase at least one clip frame long"),
    "duplicate name": (lambda d: d["phases"][1].update(name="rise"), r"phases\[1\].name: expected a unique phase name"),
    "min rate zero": (lambda d: d["phases"][0].update(min_rate=0), r"phases\[0\].min_rate: expected 0 < min_rate <= 1"),
    "min rate above one": (lambda d: d["phases"][0].update(min_rate=1.2), r"phases\[0\].min_rate: expected 0 < min_rate <= 1"),
    "max rate below one": (lambda d: d["phases"][0].update(max_rate=0.9), r"phases\[0\].max_rate: expected max_rate >= 1"),
    "t_offset length": (lambda d: d["phases"][0].update(t_offset=[0, 1]), r"phases\[0\].t_offset: expected a list of three finite numbers"),
    "t_offset nan": (lambda d: d["phases"][0].update(t_offset=[0, math.nan, 0]), r"phases\[0\].t_offset: expected a list of three finite"),
    "r_offset text": (lambda d: d["phases"][0].update(r_offset="0 0 0"), r"phases\[0\].r_offset: expected a list of three finite"),
    "warp_translation": (lambda d: d["phases"][0].update(warp_translation="yes"), r"phases\[0\].warp_translation: expected true or false"),
    "warp_rotation": (lambda d: d["phases"][0].update(warp_rotation=1), r"phases\[0\].warp_rotation: expected true or false"),
    "axes": (lambda d: d["phases"][0].update(axes="xw"), r"phases\[0\].axes: expected some of the letters x, y, z"),
    "axes repeated": (lambda d: d["phases"][0].update(axes="xx"), r"phases\[0\].axes: expected some of the letters"),
    "defer_rise": (lambda d: d["phases"][0].update(defer_rise="yes"), r"phases\[0\].defer_rise: expected true or false"),
    "defer_rise on the last phase": (lambda d: d["phases"][1].update(defer_rise=True),
                                     r"phases\[1\].defer_rise: expected false: no phase after it warps z to carry "
                                     r"the rise it leaves"),
    "defer_rise before a phase without z": (lambda d: (d["phases"][0].update(defer_rise=True),
                                                       d["phases"][1].update(axes="xy")),
                                            r"phases\[0\].defer_rise: expected false: no phase after it warps z"),
    "defer_rise without z": (lambda d: d["phases"][0].update(defer_rise=True, warp_translation=False),
                             r"phases\[0\].defer_rise: expected false on a phase that does not warp z"),
    "warp_from text": (lambda d: d["phases"][0].update(warp_from="late"),
                       r"phases\[0\].warp_from: expected clip seconds with 0 <= warp_from \(or null: from the phase's start\), got 'late'"),
    "warp_from at the start": (lambda d: d["phases"][1].update(warp_from=d["phases"][1]["start"]),
                               r"phases\[1\].warp_from: expected clip seconds inside the phase \(after its start"),
    "warp_from past the end": (lambda d: d["phases"][0].update(warp_from=d["phases"][0]["end"] + 0.1),
                               r"phases\[0\].warp_from: expected clip seconds inside the phase"),
    "align joint": (lambda d: d["phases"][0].update(align_joint="hand_l"),
                    r"phases\[0\].align_joint: expected a joint of hop.glb: root, bone"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_field_is_named(base, model, case):
    change, message = BAD[case]
    path = write(model, edit(change))
    with pytest.raises(AssetError, match=message) as caught:
        WarpAsset.load(path)
    assert str(caught.value).startswith(str(path))


@pytest.mark.parametrize("text, message", [
    ("{not json", "is not valid JSON"),
    ("[1, 2]", "expected a JSON object, got list"),
])
def test_unreadable_files(base, model, text, message):
    with pytest.raises(AssetError, match=message):
        WarpAsset.load(write(model, text))


def test_missing_file(base, model):
    with pytest.raises(AssetError, match="ghost.warp.json: file not found"):
        WarpAsset.load(model / "ghost.warp.json")


def test_parsing_checks_the_file_without_its_model(model):
    data = edit(lambda d: d.update(model="not_there.glb"))
    parsed = parse_asset(data, "hop.warp.json")
    assert (parsed.model, parsed.clip, parsed.root_joint) == ("not_there.glb", "hop", "root")
    assert [(p.name, p.start, p.end, p.min_rate) for p in parsed.phases] == [("rise", 0.0, 0.5, 0.5), ("land", 0.5, 1.0, 1.0)]
    assert parsed.phases[0].motion is None  # nothing read from a clip
    with pytest.raises(AssetError, match=r"hop.warp.json: phases\[1\].start: expected phases in order"):
        parse_asset(edit(lambda d: d["phases"][1].update(start=0.4)), "hop.warp.json")


def test_rebinding_an_edit_uses_the_loaded_clip_and_its_motion(base, model, monkeypatch):
    asset = WarpAsset.load(write(model, good()))
    (model / "hop.glb").unlink()   # loading it again would fail
    monkeypatch.setattr("motionwarp.warp.asset.load_model_node", lambda *a: pytest.fail("the model was loaded again"))
    data = asset.to_dict()
    data["phases"][0]["end"] = data["phases"][1]["start"] = 0.25
    edited = asset.rebind(data)
    assert edited.clips is asset.clips and edited.track is asset.track
    # The hop's keys: y 0 -> 1 -> 2 m and z 0 -> 0.5 -> 0 m at 0, 0.5, 1 s, linear between keys.
    assert edited.phases[0].total_root_motion == pytest.approx((0.0, 0.5, 0.25), abs=1e-5)
    assert edited.phases[1].total_root_motion == pytest.approx((0.0, 1.5, 0.75), abs=1e-5)
    assert asset.phases[0].end == 0.5  # the original is left as it was


def test_a_rebound_edit_is_checked_against_the_clip_and_names_file_and_field(base, model):
    path = write(model, good())
    asset = WarpAsset.load(path)
    data = asset.to_dict()
    data["phases"][1]["end"] = 1.2
    with pytest.raises(AssetError, match=r"phases\[1\].end: expected a time inside the clip \(0 to 1.000 s\)") as caught:
        asset.rebind(data)
    assert str(caught.value).startswith(str(path))
    data = asset.to_dict()
    data["model"] = "other.glb"   # another model is loaded, not the bound one reused
    with pytest.raises(AssetError, match="model: expected a loadable glTF character"):
        asset.rebind(data)


def test_a_rebound_edit_places_contacts_like_a_fresh_load(base):
    asset = WarpAsset.load(ASSETS / "vault.warp.json")
    data = asset.to_dict()
    data["phases"][0]["end"] = data["phases"][1]["start"] = 0.6   # the hands' target phase ends earlier
    edited, fresh = asset.rebind(data), WarpAsset.from_dict(data, asset.path)
    assert fresh.clips is not asset.clips
    for rebound, loaded in zip(edited.contacts, fresh.contacts):
        assert rebound.touchdown == pytest.approx(loaded.touchdown, abs=1e-9)
    assert edited.contacts[4].touchdown != pytest.approx(asset.contacts[4].touchdown, abs=1e-3)


def documented_defaults():
    """{field path: default} from the table of optional fields in docs/design.md 5.1."""
    design = (ROOT / "docs" / "design.md").read_text()
    section = design[design.index("### 5.1 Warp asset"):design.index("### 5.2 ")]
    rows = re.findall(r"^\s*\| `([a-z_\[\].]+)` \| `([^`]+)` \|", section, re.MULTILINE)
    assert rows, "docs/design.md 5.1 no longer has its table of optional fields and defaults"
    return {field: json.loads(default) for field, default in rows}


def test_the_documented_defaults_are_what_the_parser_fills_in():
    """Every optional field of a warp asset is in design 5.1's table, with the value the parser gives a
    file that leaves it out (the oracle is the document, read as text)."""
    defaults = documented_defaults()
    bare = {"format": "motionwarp.asset/1", "model": "m.glb", "clip": "c", "root_joint": "root",
            "phases": [{"name": "p", "start": 0.0, "end": 1.0}],
            "contacts": [{"joint": "foot", "start": 0.0, "end": 0.5, "touches": "surface"}]}
    without_contacts = {key: value for key, value in bare.items() if key != "contacts"}
    parsed, plain = parse_asset(bare, "bare.warp.json"), parse_asset(without_contacts, "plain.warp.json")
    phase, contact = parsed.phases[0], parsed.contacts[0]
    filled = {"root_mode": plain.root_mode, "traversal": plain.traversal, "contacts": plain.contacts,
              "pose_match": plain.pose_match}
    filled.update({f"phases[].{key}": getattr(phase, key) for key in assetdata._PHASE_KEYS - {"name", "start", "end"}})
    filled.update({f"contacts[].{key}": getattr(contact, key) for key in ("phase", "offset", "normal", "touch")})
    optional = ({key for key in assetdata._TOP_KEYS if key not in bare or key == "contacts"}
                | {f"phases[].{key}" for key in assetdata._PHASE_KEYS if key not in bare["phases"][0]}
                | {f"contacts[].{key}" for key in contacts._KEYS if key not in bare["contacts"][0]})
    assert set(defaults) == optional, "optional fields the design's table leaves out, or names wrongly"
    for field, default in defaults.items():
        value = filled[field]
        assert (list(value) if isinstance(value, tuple) else value) == default, field


def test_the_guide_defaults_agree_with_the_design():
    """The warp assets guide's short table of defaults says what design 5.1's table says."""
    guide = (ROOT / "docs" / "warp-assets.md").read_text()
    start = guide.index("## Optional fields and their defaults")
    section = guide[start:guide.index("\n## ", start + 1)]
    rows = re.findall(r"^\| ((?:top level )?`[a-z_]+`(?:, `[a-z_]+`)*) \| (.+?) \| .+ \|$", section, re.MULTILINE)
    assert len(rows) >= 8, "the guide's table of warp asset defaults is gone"
    design, said = documented_defaults(), {}
    for fields, defaults in rows:
        names = re.findall(r"`([a-z_]+)`", fields)
        values = [json.loads(text) for text in re.findall(r"`([^`]+)`", defaults)] if defaults != "none" else [None]
        values = values * len(names) if len(values) == 1 else values
        for name, value in zip(names, values, strict=True):
            said[name if fields.startswith("top level") else f"phases[].{name}"] = value
    assert said == {field: value for field, value in design.items() if not field.startswith("contacts[]")}
