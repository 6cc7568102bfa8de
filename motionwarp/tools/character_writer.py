"""`python -m motionwarp inspect MODEL.glb --write-character OUT.json`: a character file for the demo
(docs/design.md 5.4) from what `inspect` measured, so a new rig plays without a hand-written file.

Each locomotion role gets the clip whose guessed role it is (plainly named ones first: `Idle`
over `2H_Melee_Idle`), cycles authored in place get the speed their planted feet stand still
at, and the file says which way the model faces (`turn`) and what makes it metres (`scale`).
"""
import os

from ..base.errors import FieldError, UsageError, shown
from ..base.jsonfields import read_json

FORMAT = "motionwarp.character/1"
#: Roles the demo needs, and the optional ones (demo/character/character_file.py).
REQUIRED = ("idle", "walk", "run", "fall", "land")
OPTIONAL = ("dodge",)


def choose_clips(model):
    """({role: clip}, [notes]) for the demo's roles; a required role no clip fills gets the walk (a
    run) or the idle (a fall, a landing), and a note says so."""
    by_role = {}
    for clip in model.bundles:
        by_role.setdefault(model.role(clip), []).append(clip)
    chosen, notes = {}, []
    for role in REQUIRED + OPTIONAL:
        # the role's own word in the name first (a dodge forward over the others), then the shortest name
        named = sorted(by_role.get(role, []), key=lambda c: (role not in c.lower(), "forward" not in c.lower(),
                                                              len(c), c))
        if named:
            chosen[role] = named[0]
        elif role in REQUIRED:   # a run falls back on the walk, the rest on the idle
            stand_in = "walk" if role == "run" else "idle"
            fallback = chosen.get(stand_in)
            if fallback is None:
                looks = " or ".join(_a(word) for word in dict.fromkeys((role, stand_in)))
                raise UsageError(f"{model.path}: no clip looks like {looks}; roles guessed: {', '.join(sorted(by_role))}")
            chosen[role] = fallback
            notes.append(f"no {role} clip found: {fallback} plays as {role}")
    return chosen, notes


def _a(word):
    """`word` with its indefinite article: "an idle", "a walk"."""
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def character_data(model, out):
    """The character file's content for `model` (an inspector Model), written to `out`."""
    clips, notes = choose_clips(model)
    joint, mode, _, _ = model.recommended()
    speeds = {}
    for role in ("walk", "run"):
        facts = model.facts(clips[role])
        if facts.speed:
            speeds[role] = round(facts.speed * model.scale, 3)
        elif not facts.travel:
            notes.append(f"{clips[role]} neither travels nor steps: give speeds.{role} by hand")
    folder = os.path.dirname(os.path.abspath(out))
    data = {"format": FORMAT, "model": os.path.relpath(model.path, folder).replace(os.sep, "/"),
            "scale": model.scale, "turn": model.turn, "root_joint": joint, "root_mode": mode,
            "clips": clips, "speeds": speeds, "warp_assets": [], "contact_ik": False}
    limbs = model.skeleton.limbs
    if "foot_l" in limbs and "foot_r" in limbs:   # legs the contact IK can bend: it is on
        data.update(contact_ik=True, feet=[limbs["foot_l"].joint, limbs["foot_r"].joint])
    else:
        notes.append("no left and right foot joints found by name: contact_ik is off")
    return data, notes


def asset_folder(character):
    """Where a character file's `warp_assets` are found (docs/design.md 5.4): the `assets/` folder beside
    the file's folder, so `characters/` and `assets/` copied together keep working."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(character))), "assets")


def listed_asset(character, asset, current=None):
    """(name, content) of the character file at `character` with the warp asset at `asset` listed in
    its `warp_assets` (by its name under `asset_folder(character)`), read from `current` (default
    `character`: an edited copy of a read-only file when there is one). Nothing is written."""
    folder = asset_folder(character)
    name = os.path.relpath(os.path.abspath(asset), folder).replace(os.sep, "/")
    if name.startswith("../") or not name.endswith(".warp.json"):
        raise UsageError(f"{character}: warp_assets are *.warp.json under {folder}; {asset} is not")
    name = name[:-len(".warp.json")]
    current = character if current is None else current
    data = read_json(current, FieldError)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FieldError(current, "format" if isinstance(data, dict) else "", f"expected a {FORMAT} file")
    listed = data.get("warp_assets", [])
    if not isinstance(listed, list) or not all(isinstance(entry, str) and entry for entry in listed):
        raise FieldError(current, "warp_assets", f"expected a list of warp asset names, got {shown(listed)}")
    if name not in listed:
        data["warp_assets"] = listed + [name]
    return name, data
