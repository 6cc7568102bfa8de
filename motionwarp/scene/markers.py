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
import math

from panda3d.core import GeomNode, NodePath, Point3, Vec3

from ..animation.motion import Motion
from ..base.config import ProviderSettings
from ..base.errors import UsageError
from ..warp.assetdata import TRAVERSAL_KINDS
from ..warp.authored import authored_anchor, authored_between, authored_root_end
from ..warp.target import WarpTarget
from .measure import facing
from ..warp.refusal import Cause
from .providers import Interaction, Refusal, _Asked, nothing_in_front

#: The tag that makes a node a marker; its value is the kind (`sit`, `pick_up`, `use`).
MARKER_TAG = "motionwarp-interaction"
MARKER_KINDS = tuple(name for name, kind in TRAVERSAL_KINDS.items() if kind.found_by == "marker")
_NOTHING_HERE = nothing_in_front(("interact with",))
NO_MARKER = _NOTHING_HERE.text
_UP = Vec3(0, 0, 1)


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

    def __init__(self, probe, markers, assets, space=None, *, warp_settings=None, **settings):
        """`markers`: a NodePath searched for tagged nodes now and on `refresh()`; `assets` is re-read
        at every query, as for the other providers."""
        if not isinstance(markers, NodePath) or markers.isEmpty():
            raise UsageError(f"MarkerProvider markers: expected a NodePath to search for markers, got {markers!r}")
        self.probe, self.space, self._given = probe, space, assets
        self.warp_settings = warp_settings
        self.settings = ProviderSettings.from_prc(**settings)
        self._root = markers
        self.refresh()
        if not self._own(assets):
            raise UsageError(f"no marker asset among {[getattr(a, 'clip', a) for a in assets]}: a marker asset has "
                             f"\"traversal\": {{\"kind\": one of {', '.join(map(repr, MARKER_KINDS))}, ...}}")

    def refresh(self):
        """Search the markers again (after adding or removing some; moved markers are followed anyway)."""
        self.markers = find_markers(self._root)

    @property
    def assets(self):
        return self._own(self._given)

    @staticmethod
    def _own(given):
        return [asset for asset in given if asset.traversal is not None and asset.traversal.kind in MARKER_KINDS]

    def _settings_values(self):
        """What a kept answer depends on besides the character's place: settings, and every marker's
        kind and place (a moved or retagged marker is seen at once)."""
        space = self._space()
        return (tuple(vars(self.settings).values()),
                tuple((m.getTag(MARKER_TAG), tuple(m.getPos(space)), m.getH(space)) for m in self.markers))

    def _space(self):
        return self.space if self.space is not None else self._root.getTop()

    def _answer(self, pos, h, given):
        assets = self._own(given)
        space, pos = self._space(), Point3(pos)
        ahead = facing(h)
        seen = []
        for marker in self.markers:
            kind = marker.getTag(MARKER_TAG)
            offset = marker.getPos(space) - pos
            ground = offset.getXy().length()
            bearing = math.degrees(math.atan2(abs(ahead.x * offset.y - ahead.y * offset.x),
                                              ahead.x * offset.x + ahead.y * offset.y)) if ground > 1e-6 else 0.0
            if ground <= self.settings.reach and bearing <= self.settings.max_approach_deg:
                seen.append((ground, marker, kind))
        if not seen:
            return Refusal(causes=(_NOTHING_HERE,))
        refusals = []
        for ground, marker, kind in sorted(seen, key=lambda item: item[0]):
            answer = self._judge(marker, kind, ground, pos, h, space, assets)
            if answer:
                return answer
            refusals.append(answer)
        return refusals[0]

    def _judge(self, marker, kind, ground, pos, h, space, assets):
        at, marker_h = marker.getPos(space), marker.getH(space)
        height = round(at.z - pos.z, 4)
        turn = _wrap(marker_h - h)

        def refuse(cause, **numbers):
            return Refusal.of(cause, marker, ground, kind, {"height": height, "distance": ground, "turn_deg": turn,
                                                            **numbers})

        if kind not in MARKER_KINDS:
            return refuse(f"{marker.getName()} is marked {kind!r}: expected one of {', '.join(MARKER_KINDS)}")
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
        authored_turn = authored_anchor(asset, 0).h
        off = abs(_wrap(turn - authored_turn))
        if off > self.settings.max_approach_deg:
            return refuse(f"wrong side to {verb} (approach {off:.0f}° off the marker's > "
                          f"{self.settings.max_approach_deg:.0f}°)", approach_deg=off)
        targets = self._targets(asset, marker, space)
        blocker = self._blocked(asset, targets[0], pos, marker)
        if blocker is not None:
            return refuse(f"no room to {verb} (blocked by {blocker.getName() or 'something'})")
        normal = Vec3(pos.x - at.x, pos.y - at.y, 0)
        normal.normalize()
        return Interaction(kind, asset, targets, height, 0.0, Point3(at), None, normal, marker, ground, prop=_prop(marker, self._root))

    @staticmethod
    def _targets(asset, marker, space):
        """Phase 0 on the marker; each later phase on the child named like it, else where the clip goes."""
        at, marker_h = marker.getPos(space), marker.getH(space)
        placed = Motion(tuple(at), marker_h)
        targets = [WarpTarget(Point3(at), h=marker_h)]
        for index, phase in enumerate(asset.phases[1:], start=1):
            child = marker.find(phase.name)
            if not child.isEmpty():
                targets.append(WarpTarget(child.getPos(space), h=child.getH(space)))
                continue
            later = placed * authored_between(asset, 0, index)
            targets.append(WarpTarget(Point3(*later.pos), h=later.h))
        return targets

    def _blocked(self, asset, target, pos, marker):
        """What stops the capsule, from knee height up, on its way from where it stands to where phase 0
        ends it (None: room), the prop the marker is placed on (its parent, and what is under it) excepted."""
        # From knee height (face_low) up: the floor, and what the feet step over, are not in the way.
        settings = self.settings
        radius, height = settings.capsule_radius, settings.capsule_height - settings.face_low
        stand = Motion(tuple(target.pos), target.h) * authored_root_end(asset, 0)
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
