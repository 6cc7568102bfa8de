"""Mirrored clips (docs/design.md 3.4): any clip played left for right, from a mirror table of joints.

The mirror is the plane x = 0 of the actor's own space (left-right for a character facing +Y, as
motionwarp's are). A joint's mirrored pose is its partner's, reflected: in model space
`G'_J(f) = K_J · G_P(f) · M`, `P` being J's partner, `M` the reflection x -> -x and
`K_J = R_J · M · R_P⁻¹` (R: the rest pose's model-space matrices, row vectors), so a skeleton at
rest mirrors onto itself whatever the joints' own axes. The root motion is mirrored with the pose
(x -> -x, heading -> -heading): a driver strips the mirrored clip as any other.
"""
import numpy as np
from direct.actor.Actor import Actor
from panda3d.core import (AnimBundle, AnimBundleNode, AnimChannelMatrixXfmTable, AnimChannelScalarTable, AnimGroup,
                          NodePath)

from ..base.errors import UsageError, shown
from . import rootmotion
from .actor_clips import clip_control

#: Joint name pairs a mirror table is found from: a suffix each (`hand_l`/`hand_r`, `hand.L`/`hand.R`),
#: or a word anywhere in the name (`LeftHand`/`RightHand`).
SUFFIX_PAIRS = (("_l", "_r"), ("_L", "_R"), (".L", ".R"), (".l", ".r"))
WORD_PAIRS = (("Left", "Right"), ("left", "right"))
#: A mirrored clip's name: the clip's, with this after it.
MIRRORED = ".mirrored"
#: The reflection x -> -x (row vectors, homogeneous).
_M = np.diag([-1.0, 1.0, 1.0, 1.0])


def mirrored_name(clip):
    return clip + MIRRORED


def _side_partner(name):
    """The name `name` mirrors to by its side marker, or None when it has none."""
    for left, right in SUFFIX_PAIRS:
        for this, other in ((left, right), (right, left)):
            if name.endswith(this):
                return name[:-len(this)] + other
    for left, right in WORD_PAIRS:
        for this, other in ((left, right), (right, left)):
            if this in name:
                return name.replace(this, other, 1)
    return None


def mirror_table(names, given=None):
    """{joint: its partner} for every joint in `names`: found from the side markers (SUFFIX_PAIRS,
    WORD_PAIRS), or from `given` ({joint: partner}, each pair once, either way round), joints without
    a side their own partner. A UsageError names a side joint without its partner, or a bad pair."""
    names = list(names)
    known = set(names)
    if given is None:
        table = {}
        for name in names:
            partner = _side_partner(name)
            if partner is not None and partner not in known:
                raise UsageError(f"mirror table: joint {name!r} has no partner {partner!r} in the skeleton; "
                                 f"give the table ({{'{name}': 'its partner'}})")
            table[name] = partner if partner is not None else name
        return table
    if not isinstance(given, dict):
        raise UsageError(f"mirror table: expected {{joint: partner}}, got {shown(given)}")
    table = {name: name for name in names}
    for joint, partner in given.items():
        for side in (joint, partner):
            if side not in known:
                raise UsageError(f"mirror table: {side!r} is not a joint of the skeleton; it has: {', '.join(names)}")
        for this, other in ((joint, partner), (partner, joint)):
            if table[this] not in (this, other):
                raise UsageError(f"mirror table: joint {this!r} is paired with both {table[this]!r} and {other!r}")
            table[this] = other
    return table


def _channels(bundle):
    """[(channel, parent channel or None)] of an AnimBundle's matrix channels, parents first."""
    found, stack = [], [(bundle, None)]
    while stack:
        group, parent = stack.pop()
        if isinstance(group, AnimChannelMatrixXfmTable):
            found.append((group, parent))
            parent = group
        stack.extend((group.getChild(i), parent) for i in reversed(range(group.getNumChildren())))
    return found


def _as_array(mat):
    return np.array([list(mat.getRow(r)) for r in range(4)])


def _model_matrices(bundle, base):
    """{joint: model-space matrices per frame, Nx4x4}, the root motion a driver stripped put back."""
    n = bundle.getNumFrames()
    stripped = rootmotion._stripped.get(bundle.this)
    motion = None
    if stripped is not None:   # the top channels lost S(f) (rootmotion.strip): put it back
        motion = np.array([rootmotion.motion_matrix(row[:3], row[3]) for row in
                           (stripped[2].sample(f) for f in range(n))])
    model = {}
    for channel, parent in _channels(bundle):
        local = rootmotion.local_matrices(channel, n)
        if parent is not None:
            model[channel.getName()] = local @ model[parent.getName()]
        else:
            model[channel.getName()] = local @ base if motion is None else local @ base @ motion
    return model


def _rest_matrices(part_bundle, bundle, base):
    """{joint: model-space matrix of the rest pose} for the channels of `bundle`."""
    rest = {}
    for channel, parent in _channels(bundle):
        joint = part_bundle.findChild(channel.getName())
        if joint is None:
            raise UsageError(f"mirror: clip {bundle.getName()!r} animates {channel.getName()!r}, "
                             "which the actor's skeleton does not have")
        local = _as_array(joint.getDefaultValue())
        rest[channel.getName()] = local @ (rest[parent.getName()] if parent is not None else base)
    return rest


def mirrored_bundle(bundle, part_bundle, base, table, name):
    """A new AnimBundle `name`: `bundle` (an Actor's, stripped or not) mirrored with `table` ({joint:
    partner}), its channels in the same tree (morph sliders' kept unmirrored); `part_bundle` gives the rest pose, `base` the skeleton's
    place in the actor (rootmotion.character_base)."""
    n = bundle.getNumFrames()
    base = np.eye(4) if base is None else np.asarray(base, dtype=np.float64)
    model, rest = _model_matrices(bundle, base), _rest_matrices(part_bundle, bundle, base)
    missing = sorted(joint for joint in model if table.get(joint, joint) not in model)
    if missing:
        raise UsageError(f"mirror: clip {bundle.getName()!r} has no channel for the partner of "
                         f"{', '.join(map(repr, missing))}")
    mirrored = {}
    for joint in model:
        partner = table.get(joint, joint)
        fix = rest[joint] @ _M @ np.linalg.inv(rest[partner])
        mirrored[joint] = fix[None] @ model[partner] @ _M
    out = AnimBundle(name, bundle.getBaseFrameRate(), n)
    made = {}

    def copy(group, into):
        for i in range(group.getNumChildren()):
            child = group.getChild(i)
            if isinstance(child, AnimChannelMatrixXfmTable):
                made[child.getName()] = new = AnimChannelMatrixXfmTable(into, child.getName())
            elif isinstance(child, AnimChannelScalarTable):   # a morph slider (a face): kept as it is
                new = AnimChannelScalarTable(into, child.getName())
                new.setTable(child.getTable())
            else:
                new = AnimGroup(into, child.getName())
            copy(child, new)
    copy(bundle, out)
    for channel, parent in _channels(bundle):
        joint = channel.getName()
        above = mirrored[parent.getName()] if parent is not None else base[None]
        rootmotion.write_tables(made[joint], mirrored[joint] @ np.linalg.inv(above))
    return out


def mirror_clip(actor, clip, table=None):
    """Give `actor` the clip `clip` mirrored, as `mirrored_name(clip)`; returns that name.

    `table`: {joint: partner} (mirror_table's `given`), found from the joint names when None. Do it
    before a MotionWarper (or RootMotionDriver) is made for the actor: a driver drives the clips the
    actor has when it is made."""
    if not isinstance(actor, Actor) or actor.isEmpty():
        raise UsageError(f"mirror_clip: expected an Actor that is not removed, got {type(actor).__name__} "
                         f"{shown(actor)}")
    source = clip_control(actor, clip).getAnim()
    part_bundle = actor.getPartBundle("modelRoot")
    joints = [joint.getName() for joint in actor.getJoints()]
    name = mirrored_name(clip)
    bundle = mirrored_bundle(source, part_bundle, rootmotion.character_base(actor), mirror_table(joints, table), name)
    actor.loadAnims({name: NodePath(AnimBundleNode(name, bundle))})
    return name


def mirrored_track(track, clip):
    """The root motion `track` mirrored (x -> -x, heading -> -heading), named `clip`: the track a
    driver extracts from the mirrored bundle, computed without it."""
    turned = np.radians(track.headings)
    x0, y0, z0 = track.origin_pos
    absolute = track.positions + np.column_stack([np.cos(turned) * x0 - np.sin(turned) * y0,
                                                  np.sin(turned) * x0 + np.cos(turned) * y0,
                                                  np.full(len(turned), z0)])
    return rootmotion.RootMotionTrack(clip, track.fps, absolute * np.diag(_M)[:3],
                                      -(track.headings + track.origin_h))
