"""Contacts of a warp asset (docs/design.md 5): which joint touches what, in which window of clip time.

A contact names an end joint (a hand or a foot; the chain the IK bends is its parent and
grandparent), the window `[start, end]` in clip seconds, and what it touches:
- `"target"`: the target point of phase `phase` (the point that phase warps to, without the
  phase's own `t_offset`), the joint sitting at `offset` from it in the target's frame, above
  the surface facing `normal` there (up for a top; the IK looks for that surface along it, near
  the target), or exactly there with `normal` None (a marker a level designer put where the hand
  grabs or presses). `touch` (optional) is the point the joint touches with, in the target's frame as
  `offset` is (a palm 2 cm beyond the wrist): the surface is looked for under that point, and the joint
  keeps its offset from it; None: under the offset point itself;
- `"surface"`: whatever a ray finds under the joint, the joint sitting at `offset` from the hit
  point (e.g. `[0, 0, 0.08]`: an ankle 8 cm above the sole).
`offset` is where the joint was, as authored, relative to what it touches.
"""
from typing import Optional
import dataclasses
import math

from ..base.edits import Edited
from ..base.errors import shown

TOUCHES = ("target", "surface")
_KEYS = ("joint", "start", "end", "touches", "phase", "offset", "normal", "touch")
#: Which way a target contact's surface faces, in the target's frame, unless the contact says.
UP = (0.0, 0.0, 1.0)


@dataclasses.dataclass
class Contact(Edited):
    """One joint touching a phase's target or the surface under it, from `start` to `end` (clip seconds)."""

    TUPLES = frozenset({"offset", "normal", "touch", "touchdown"})

    joint: str
    start: float
    end: float
    touches: str
    phase: Optional[str] = None
    offset: tuple = (0.0, 0.0, 0.0)
    #: Target contacts: the unit direction the touched surface faces, in the target's frame; None:
    #: the joint goes to the target itself (no surface is looked for).
    normal: Optional[tuple] = UP
    #: Target contacts with a normal: the point the joint touches with (a palm), in the target's frame
    #: as `offset` is; the IK looks for the surface under it. None: under the offset point itself.
    touch: Optional[tuple] = None
    #: Computed on load: where the clip puts the joint at `start`, in the root's frame at the end of
    #: the contact's phase (target contacts: where it lands when the phase ends on its target), or
    #: at `start` (surface contacts).
    touchdown: Optional[tuple] = dataclasses.field(default=None, compare=False)

    def weight(self, seconds, blend, blend_out=None):
        """How much the IK holds the joint at clip time `seconds`: 1 inside the window, easing to 0
        over `blend` seconds before it starts and `blend_out` (default `blend`) after it ends
        (smoothstep, so no joint jumps)."""
        if self.start <= seconds <= self.end:
            return 1.0
        if seconds > self.end and blend_out is not None:
            blend = blend_out
        gap = self.start - seconds if seconds < self.start else seconds - self.end
        if blend <= 0.0 or gap >= blend:
            return 0.0
        x = 1.0 - gap / blend
        return x * x * (3.0 - 2.0 * x)

    def to_dict(self):
        data = {"joint": self.joint, "start": self.start, "end": self.end, "touches": self.touches}
        if self.phase is not None:
            data["phase"] = self.phase
        data["offset"] = list(self.offset)
        if self.normal != UP:
            data["normal"] = None if self.normal is None else list(self.normal)
        if self.touch is not None:
            data["touch"] = list(self.touch)
        return data


def read_contacts(check, data, phases):
    """The `contacts` list of an asset's JSON, checked on its own; `phases`: the asset's phase names.
    The joints and times are checked against the model by `check_contacts` when the asset is bound."""
    contacts = []
    for item, field in check.items(data, "contacts"):
        check.object(item, field, _KEYS, required=("joint", "start", "end", "touches"))
        contact = Contact(joint=check.string(item, "joint", field), start=check.number(item, "start", field),
                          end=check.number(item, "end", field), touches=item["touches"], phase=item.get("phase"),
                          offset=check.vector(item, "offset", field),
                          normal=_normal(check, item, field),
                          touch=None if item.get("touch") is None else check.vector(item, "touch", field))
        if contact.end <= contact.start:
            check.fail(f"{field}.end", f"expected a time after start ({contact.start}), got {contact.end}")
        if contact.touches not in TOUCHES:
            check.fail(f"{field}.touches", f"expected one of {', '.join(map(repr, TOUCHES))}, got {shown(contact.touches)}")
        if contact.touches == "target" and contact.phase not in phases:
            check.fail(f"{field}.phase", f"expected the name of a phase ({', '.join(phases)}) whose target the "
                                         f"joint touches, got {shown(contact.phase)}")
        if contact.touches == "surface" and "phase" in item:
            check.fail(f"{field}.phase", "expected no phase: a surface contact touches what is under the joint")
        if contact.touches == "surface" and "normal" in item:
            check.fail(f"{field}.normal", "expected no normal: a surface contact touches what is under the joint")
        if contact.touch is not None and (contact.touches != "target" or contact.normal is None):
            check.fail(f"{field}.touch", "expected no touch: only a target contact with a normal looks for the surface "
                                         "under the point it touches")
        contacts.append(contact)
    return contacts


def _normal(check, item, field):
    """A contact's `normal`: up when absent, None when null, else scaled to length 1."""
    if "normal" in item and item["normal"] is None:
        return None
    vector = check.vector(item, "normal", field, default=list(UP))
    length = math.sqrt(sum(v * v for v in vector))
    if length < 1e-6:
        check.fail(f"{field}.normal", f"expected a direction (three numbers, not all zero) or null, got {list(vector)}")
    return tuple(v / length for v in vector)


def check_contacts(check, contacts, model, parents, duration):
    """Check parsed contacts against the model: `parents` maps each of its joints to its parent (or None),
    `duration` is the clip's length in seconds."""
    for index, contact in enumerate(contacts):
        field = f"contacts[{index}]"
        if contact.joint not in parents:
            check.fail(f"{field}.joint", f"expected a joint of {model}: {', '.join(parents)}; got {shown(contact.joint)}")
        if parents[contact.joint] is None or parents[parents[contact.joint]] is None:
            check.fail(f"{field}.joint", f"expected an end joint with a parent and a grandparent (the two bones "
                                         f"the IK bends), {shown(contact.joint)} has not")
        for key in ("start", "end"):
            if not 0.0 <= getattr(contact, key) <= duration:
                check.fail(f"{field}.{key}", f"expected a time inside the clip (0 to {duration:.3f} s), "
                                             f"got {getattr(contact, key)}")
