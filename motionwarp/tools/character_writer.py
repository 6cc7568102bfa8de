"""`python -m motionwarp inspect MODEL.glb --write-character OUT.json`: a character file for the demo
(docs/design.md 5.4) from what `inspect` measured, so a new rig plays without a hand-written file.

Each locomotion role gets the clip whose guessed role it is (plainly named ones first: `Idle`
over `2H_Melee_Idle`), cycles authored in place get the speed their planted feet stand still
at, and the file says which way the model faces (`turn`) and what makes it metres (`scale`).
"""
import dataclasses
import os

from ..base.errors import FieldError, UsageError, shown
from ..base.jsonfields import read_json

FORMAT = "motionwarp.character/1"
#: Roles the demo needs, and the optional ones (motionwarp_demo/character/character_file.py).
REQUIRED = ("idle", "walk", "run", "fall", "land")
OPTIONAL = ("dodge",)


@dataclasses.dataclass(frozen=True)
class CannotPlay:
    """One reason a character file would not play, as data: `what` is wrong ("skeleton", or the role
    no clip fills: "idle", "walk"); `cause` the skeleton's problem in words; `guessed` the roles the
    clips were guessed as; `for_the_skeleton` when no role could be read for that problem (no feet:
    no contacts, no stepping), so the one line says the cause once."""

    what: str
    cause: str = ""
    guessed: tuple = ()
    for_the_skeleton: bool = False

    def __str__(self):
        if self.what == "skeleton":
            return self.cause
        clip = "an idle" if self.what == "idle" else "a walk"
        why = "the skeleton cannot walk" if self.for_the_skeleton else f"roles guessed: {', '.join(self.guessed) or 'none'}"
        return f"no clip looks like {clip} ({why})"


def refusal_line(problems):
    """The problems (CannotPlay) in one line, each cause once: the skeleton's first, then the roles
    no clip fills (those that follow from the skeleton's problem folded after it)."""
    skeleton = [str(p) for p in problems if p.what == "skeleton"]
    follows = [p.what for p in problems if p.for_the_skeleton]
    parts = skeleton[:1]
    if follows and skeleton:
        parts[0] += f", so no clip looks like {' or '.join(('an idle' if w == 'idle' else 'a walk') for w in follows)}"
    parts += [str(p) for p in problems if p.what != "skeleton" and not (p.for_the_skeleton and skeleton)]
    return "; ".join(parts)


def choose_clips(model):
    """({role: clip}, [notes], [problems]) for the demo's roles; a required role no clip fills gets
    the walk (a run) or the idle (a fall, a landing), and a note says so. A problem (CannotPlay) is what
    keeps the file from playing: no idle or no walk (then the first clip stands in)."""
    by_role = {}
    for clip in model.bundles:
        by_role.setdefault(model.role(clip), []).append(clip)
    chosen, notes, problems = {}, [], []
    guessed = tuple(sorted(by_role))
    for role in REQUIRED + OPTIONAL:
        # the role's own word in the name first (a dodge forward over the others), then the shortest name
        named = sorted(by_role.get(role, []), key=lambda c: (role not in c.lower(), "forward" not in c.lower(),
                                                              len(c), c))
        if named:
            chosen[role] = named[0]
        elif role in ("idle", "walk"):
            problems.append(CannotPlay(role, guessed=guessed, for_the_skeleton=bool(model.skeleton.problem)))
            chosen[role] = chosen.get("idle") or next(iter(model.bundles), "")
        elif role in REQUIRED:   # a run falls back on the walk, the rest on the idle
            fallback = chosen["walk"] if role == "run" else chosen["idle"]
            chosen[role] = fallback
            notes.append(f"no {role} clip found: {fallback} plays as {role}")
    return chosen, notes, problems


def character_data(model, out):
    """(the character file's content for `model` (an inspector Model), written to `out`; notes;
    problems: why it would not play, [] when it would)."""
    clips, notes, problems = choose_clips(model)
    if model.skeleton.problem:
        problems.insert(0, CannotPlay("skeleton", cause=model.skeleton.problem))
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
    limbs, stiff = model.skeleton.limbs, model.skeleton.stiff_legs
    if not stiff:   # legs the contact IK can bend: it is on
        data.update(contact_ik=True, feet=[limbs["foot_l"].joint, limbs["foot_r"].joint])
    else:
        notes.append(f"contact_ik is off: the legs cannot bend ({stiff})")
    return data, notes, list(dict.fromkeys(problems))


def playable_data(model, out, anyway=False):
    """(the character file's content, notes) for `model` written to `out`. A file that could not play
    is refused (UsageError naming the cause) unless `anyway`; then its problems become notes."""
    data, notes, problems = character_data(model, out)
    if problems and not anyway:
        raise UsageError(f"{model.path}: not written, the character could not play: {refusal_line(problems)} "
                         "(--write-anyway writes it all the same)")
    return data, [f"cannot play: {p}" for p in problems] + notes


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
