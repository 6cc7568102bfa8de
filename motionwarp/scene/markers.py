"""Interactions a level designer placed: nodes tagged `motionwarp-interaction=<kind>` (docs/design.md 7).

    markers = MarkerProvider(probe, render, [sit, pick_up, use])
    found = markers.find(actor)          # the nearest marker in front it can reach, or why not
    if found:
        warper.play(found.asset, found.targets)

A marker's transform is where the character must arrive: the seat, the grab point, the hand on
the lever, facing the way the character faces on arrival (+Y). A clip with more phases (seat,
then stand up) takes each later target from the marker's child named like the phase, or where
the clip itself goes relative to the marker. Tags come from code (`node.setTag`) or from a glTF
file: panda3d-gltf turns a node's `extras` into tags, so an empty with the custom property
`motionwarp-interaction` placed in Blender is a marker with no code.
"""
import dataclasses
import math

from panda3d.core import GeomNode, NodePath, Point3, Vec3

from ..animation.motion import Motion
from ..base import edits
from ..base.config import ProviderSettings
from ..base.errors import UsageError
from ..warp.assetdata import TRAVERSAL_KINDS
from ..warp.authored import authored_anchor, authored_between, authored_root_end
from ..warp.target import WarpTarget
from .measure import facing
from ..warp.refusal import Cause
from .kept import KeptCache, Stamp, Stamped, kept_value
from .providers import _MOST_ASSETS, Interaction, Refusal, _Asked, nothing_in_front

#: The tag that makes a node a marker; its value is the kind (`sit`, `pick_up`, `use`).
MARKER_TAG = "motionwarp-interaction"
MARKER_KINDS = tuple(name for name, kind in TRAVERSAL_KINDS.items() if kind.found_by == "marker")
_NOTHING_HERE = nothing_in_front(("interact with",))
NO_MARKER = _NOTHING_HERE.text
_UP = Vec3(0, 0, 1)
#: How far (metres) an indexed marker may have moved since refresh() and still be found (turned or
#: nudged in place); one moved farther is found again after refresh(), or named among `moving`.
SLACK = 0.5


def find_markers(root):
    """The marker nodes under `root` (and `root` itself), in scene-graph order."""
    found = [root] if root.hasTag(MARKER_TAG) else []
    return found + list(root.findAllMatches(f"**/={MARKER_TAG}"))


def _wrap(degrees):
    return (degrees + 180.0) % 360.0 - 180.0


class MarkerProvider(_Asked):
    """The nearest marker in front of the character that it can reach with one of the assets.

    Reached means: within the provider's reach and the asset's `distance`, within
    `max_approach_deg` of the facing, the marker's height above the feet in the asset's `height`
    range, the turn from the character's heading to the marker's within `max_approach_deg` of the
    turn the clip was authored with, and room for the capsule from where the character stands to
    where the clip puts it (the prop the marker is placed on may be touched: its parent, when that is
    geometry or a mesh's node).
    """

    def __init__(self, probe, markers, assets, space=None, *, warp_settings=None, moving=(), **settings):
        """`markers`: a NodePath searched for tagged nodes now and on `refresh()`; `assets` is re-read
        at every query, as for the other providers. `moving`: nodes that move (a cart, a lift): the
        markers on them are read at every query and their targets follow them (`WarpTarget.follow`)."""
        if not isinstance(markers, NodePath) or markers.isEmpty():
            raise UsageError(f"MarkerProvider markers: expected a NodePath to search for markers, got {markers!r}")
        moving = list(moving)
        if not all(isinstance(node, NodePath) and not node.isEmpty() for node in moving):
            raise UsageError(f"MarkerProvider moving: expected NodePaths of the nodes that move, got {moving!r}")
        self.probe, self.space, self._given = probe, space, assets
        self.warp_settings = warp_settings
        self.settings = ProviderSettings.from_prc(**settings)
        self._root, self._moving_nodes = markers, moving
        self._clips = KeptCache(_MOST_ASSETS)  # id(asset): its _Authored, Stamped by its track and phases
        self._near = []
        self.refresh()
        if not self._own(assets):
            raise UsageError(f"no marker asset among {[getattr(a, 'clip', a) for a in assets]}: a marker asset has "
                             f"\"traversal\": {{\"kind\": one of {', '.join(map(repr, MARKER_KINDS))}, ...}}")

    def refresh(self):
        """Search the markers again and index where they are (after adding, removing or moving some far:
        design 7, Markers). What is wrong with a marker's tag is listed in `problems`; a removed root
        has no markers."""
        if self._root.isEmpty():
            self.markers, self.problems, self._moving, self._grid = [], [], [], _Grid(self.settings.reach, [])
            return
        self.markers = find_markers(self._root)
        kinds = [marker.getTag(MARKER_TAG) for marker in self.markers]
        self.problems = [problem for problem in map(_tag_problem, self.markers, kinds) if problem is not None]
        space = self._space()
        on_moving = [any(node == marker or node.isAncestorOf(marker) for node in self._moving_nodes)
                     for marker in self.markers]
        self._moving = [marker for marker, moves in zip(self.markers, on_moving) if moves]
        self._grid = _Grid(self.settings.reach, [_Indexed(marker, kind, *marker.getPos(space).getXy()) for
                                                 marker, kind, moves in zip(self.markers, kinds, on_moving) if not moves])

    @property
    def assets(self):
        return self._own(self._given)

    @staticmethod
    def _own(given):
        return [asset for asset in given if asset.traversal is not None and asset.traversal.kind in MARKER_KINDS]

    def find_at(self, pos, h, scale=1.0):
        self._near = self._candidates(Point3(pos), h)
        return super().find_at(pos, h, scale)

    find_at.__doc__ = _Asked.find_at.__doc__

    def _candidates(self, pos, h):
        """The markers (`_Seen`, read now) within reach of `pos`: of those indexed, the ones whose place at
        refresh() lies within SLACK of the reach and of the cone `max_approach_deg` either side of the
        facing `h` (their kind as read then); and those on moving nodes (their kind read now). Removed
        ones are left out."""
        if self._root.isEmpty() or (self.space is not None and self.space.isEmpty()):
            return []
        space = self._space()
        top, reach = space.getTop(), self.settings.reach
        ahead, cone = facing(h), math.radians(min(self.settings.max_approach_deg, 89.9))
        fx, fy, cos, sin = ahead.x, ahead.y, math.cos(cone), math.sin(cone)
        near = []
        for indexed in self._grid.near(pos, reach + SLACK):
            dx, dy = indexed.x - pos.x, indexed.y - pos.y
            along, side = dx * fx + dy * fy, abs(dx * fy - dy * fx)
            # beyond SLACK of the cone: past its edge (its nearest point on the edge ray) or behind its apex
            off = side * cos - along * sin if side * sin + along * cos > 0 else math.hypot(dx, dy)
            if off <= SLACK:
                self._read(indexed.marker, indexed.kind, space, top, pos, reach, near)
        for marker in self._moving:
            self._read(marker, None, space, top, pos, reach, near)
        return near

    @staticmethod
    def _read(marker, kind, space, top, pos, reach, near):
        """Add `marker` as it is now to `near` when it is still in the level and within `reach` of `pos`."""
        if marker.isEmpty() or marker.getTop() != top:   # removed, or its prop was
            return
        at = marker.getPos(space)
        if (at - pos).getXy().length() <= reach:
            near.append(_Seen(marker, marker.getTag(MARKER_TAG) if kind is None else kind, at, marker.getH(space)))

    def _read_now(self):
        """What a kept answer depends on that no edit count covers: the kind and place of every marker near
        the character, read now (one moved, turned or retagged is seen at once)."""
        return id(self._grid), tuple(self._near)

    def _space(self):
        return self.space if self.space is not None else self._root.getTop()

    def _answer(self, pos, h, given):
        assets = self._own(given)
        pos = Point3(pos)
        ahead = facing(h)
        seen = []
        for near in self._near:
            offset = near.at - pos
            ground = offset.getXy().length()
            bearing = math.degrees(math.atan2(abs(ahead.x * offset.y - ahead.y * offset.x),
                                              ahead.x * offset.x + ahead.y * offset.y)) if ground > 1e-6 else 0.0
            if bearing <= self.settings.max_approach_deg:
                seen.append((ground, near))
        if not seen:
            return Refusal(causes=(_NOTHING_HERE,))
        refusals = []
        for ground, near in sorted(seen, key=lambda item: item[0]):
            answer = self._judge(near.marker, near.kind, ground, pos, h, (near.at, near.h), assets)
            if answer:
                return answer
            refusals.append(answer)
        return refusals[0]

    def _judge(self, marker, kind, ground, pos, h, placed, assets):
        at, marker_h = placed
        height = round(at.z - pos.z, 4)
        turn = _wrap(marker_h - h)

        def refuse(cause, **numbers):
            return Refusal.of(cause, marker, ground, kind, {"height": height, "distance": ground, "turn_deg": turn,
                                                            **numbers}, prop=_prop(marker, self._root))

        problem = _tag_problem(marker, kind)
        if problem is not None:
            return refuse(problem)
        own, verb = [asset for asset in assets if asset.traversal.kind == kind], TRAVERSAL_KINDS[kind].verb
        if not own:
            return refuse(f"no {verb} clip")
        fitting = [a for a in own if a.traversal.height[0] <= height <= a.traversal.height[1]]
        if not fitting:
            high, low = max(a.traversal.height[1] for a in own), min(a.traversal.height[0] for a in own)
            if height > high:
                return refuse(Cause("too high", verb, height, high))
            return refuse(Cause("too low", verb, height, low))
        reaching = [a for a in fitting if a.traversal.reaches(ground)]
        if not reaching:
            near = min(a.traversal.distance[0] for a in fitting)
            far = max(a.traversal.distance[1] for a in fitting)
            if ground < near:
                return refuse(Cause("too close", verb, ground, near))
            return refuse(Cause("too far", verb, ground, far, too_far=True))
        asset = min(reaching, key=lambda a: abs(sum(a.traversal.height) / 2 - height))
        authored = self._authored(asset)
        off = abs(_wrap(turn - authored.turn))
        if off > self.settings.max_approach_deg:
            return refuse(f"wrong side to {verb} (approach {off:.0f}° off the marker's > "
                          f"{self.settings.max_approach_deg:.0f}°)", approach_deg=off)
        targets = self._targets(asset, authored, marker, placed)
        blocker = self._blocked(authored, targets[0], pos, marker)
        if blocker is not None:
            return refuse(f"no room to {verb} (blocked by {blocker.getName() or 'something'})")
        normal = Vec3(pos.x - at.x, pos.y - at.y, 0)
        normal.normalize()
        if any(marker is moving for moving in self._moving):
            targets = [_following(target, marker, self._space()) for target in targets]
        return Interaction(kind, asset, targets, height, 0.0, Point3(at), None, normal, marker, ground,
                           prop=_prop(marker, self._root))

    def _authored(self, asset):
        """What an asset's clip says of its marker (`_Authored`), read once per asset: again when it is
        another object, its track another, or an edit was counted (base/edits.py)."""
        stamp = Stamp((asset, asset.track), (edits.count,))
        authored = kept_value(self._clips, id(asset), stamp)
        if authored is None:
            authored = _Authored(authored_anchor(asset, 0).h, authored_root_end(asset, 0),
                                 tuple(authored_between(asset, 0, index) for index in range(1, len(asset.phases))))
            self._clips.keep(id(asset), Stamped(stamp, authored))
        return authored

    def _targets(self, asset, authored, marker, placed):
        """Phase 0 on the marker (at `placed`, its position and heading now); each later phase on the child
        named like it, else where the clip goes."""
        space, (at, marker_h) = self._space(), placed
        targets = [WarpTarget(Point3(at), h=marker_h)]
        for phase, between in zip(asset.phases[1:], authored.later):
            child = marker.find(phase.name)
            if not child.isEmpty():
                targets.append(WarpTarget(child.getPos(space), h=child.getH(space)))
                continue
            later = Motion(tuple(at), marker_h) * between
            targets.append(WarpTarget(Point3(*later.pos), h=later.h))
        return targets

    def _blocked(self, authored, target, pos, marker):
        """What stops the capsule, from knee height up, on its way from where it stands to where phase 0
        ends it (None: room), the prop the marker is placed on (its parent, and what is under it) excepted."""
        # From knee height (face_low) up: the floor, and what the feet step over, are not in the way.
        settings = self.settings
        radius, height = settings.capsule_radius, settings.capsule_height - settings.face_low
        stand = Motion(tuple(target.pos), target.h) * authored.root_end
        lift = _UP * (settings.face_low + height / 2)
        start, end = pos + lift, Point3(stand.pos[0], stand.pos[1], pos.z) + lift
        prop = _prop(marker, self._root)
        blocker = None
        if (end - start).length() > 1e-3:
            hit = self.probe.sweep_capsule(radius, height, start, end)
            blocker = hit.node if hit is not None else None
        if blocker is None or _part_of(blocker, prop):
            blocker = self.probe.capsule_overlaps(radius, height, end)
        return None if blocker is None or _part_of(blocker, prop) else blocker


def _following(target, marker, space):
    """`target` (in `space`) as a WarpTarget riding `marker`: re-read where the marker is every frame
    (a marker on a moving node turns about its up axis only)."""
    return WarpTarget(marker.getRelativePoint(space, target.pos), h=_wrap(target.h - marker.getH(space)), follow=marker)


def _tag_problem(marker, kind=None):
    """What is wrong with a marker's tag (a sentence naming the node, the tag and what it holds), or None."""
    kind = marker.getTag(MARKER_TAG) if kind is None else kind
    if kind in MARKER_KINDS:
        return None
    meant = kind.strip().lower().replace(" ", "_")
    hint = f" (did you mean {meant!r}?)" if meant in MARKER_KINDS else ""
    return (f"marker {marker.getName() or marker} has {MARKER_TAG}={kind!r}{hint}: expected one of "
            f"{', '.join(MARKER_KINDS)}")


@dataclasses.dataclass(frozen=True)
class _Authored:
    """What an asset's clip says of the marker it meets (warp/authored.py): the heading it meets the marker
    with (`turn`, degrees), where its root ends phase 0 seen from the marker (`root_end`), and each later
    phase's target seen from the marker (`later`, Motions)."""

    turn: float
    root_end: Motion
    later: tuple


@dataclasses.dataclass(frozen=True)
class _Indexed:
    """A marker as refresh() read it: its kind, and where it stood on the ground (x, y in the space)."""

    marker: NodePath
    kind: str
    x: float
    y: float


@dataclasses.dataclass(frozen=True)
class _Seen:
    """A marker within reach as a query reads it: its kind, its position and heading now."""

    marker: NodePath
    kind: str
    at: Point3
    h: float


class _Grid:
    """Indexed markers by the square cell of `size` metres their ground position falls in: a query looks
    only at the cells around it (issues 28, 29: 10,000 markers)."""

    def __init__(self, size, indexed):
        self.size = max(float(size), 0.5)
        self.cells = {}
        for marker in indexed:
            self.cells.setdefault(self._cell(marker.x, marker.y), []).append(marker)

    def _cell(self, x, y):
        return math.floor(x / self.size), math.floor(y / self.size)

    def near(self, pos, radius):
        """The markers indexed (`_Indexed`) in the cells a circle of `radius` around `pos` touches (a few too many)."""
        (x0, y0), (x1, y1) = self._cell(pos.x - radius, pos.y - radius), self._cell(pos.x + radius, pos.y + radius)
        cells = self.cells
        return [marker for x in range(x0, x1 + 1) for y in range(y0, y1 + 1) for marker in cells.get((x, y), ())]


def _prop(marker, root):
    """The prop a marker is placed on: its parent, when that is geometry or holds geometry directly (a
    glTF mesh's node); None for a marker placed loose in the level (under the searched `root` itself)."""
    parent = marker.getParent()
    if parent.isEmpty() or parent == marker.getTop() or parent == root:
        return None
    geometry = GeomNode.getClassType()
    if parent.node().isOfType(geometry) or any(child.node().isOfType(geometry) for child in parent.getChildren()):
        return parent
    return None


def _part_of(node, prop):
    return prop is not None and (node == prop or prop.isAncestorOf(node))
