"""Jumps found in the level's geometry (docs/design.md 7): across a gap, and onto a ledge.

    jumps = JumpProvider(probe, [jump_gap, jump_onto])
    found = jumps.find(actor)       # Interaction (take-off, landing) or Refusal

A gap is where the ground ahead ends (nothing within `max_drop` below the feet); its edge is
placed to `edge_tolerance` on three lines (the character's and one a capsule radius to each
side), which give the edge's direction, so the jump leaves square to the edge. The landing is
the first ground across that lies within the assets' height range, at the distance the clip
itself travels from take-off to landing (farther when the gap needs it, never nearer than a
capsule radius past the far edge). A ledge is measured as for a mantle; the feet land a capsule
radius onto its top and the take-off is where the clip's run ends there (at least a capsule radius
before the face).
"""
import math

from panda3d.core import Point3, Vec3

from ..base.config import ContactIKSettings, ProviderSettings
from ..base.errors import UsageError
from ..warp.authored import authored_between
from ..warp.target import WarpTarget
from .measure import facing, heading, incline_deg, measure
from ..warp.refusal import Cause
from .kept import KeptCache
from .providers import (_MOST_ASSETS, Interaction, Refusal, _across, _Asked, _highest, _metres, _moved,
                        _Provider, nothing_in_front)

_NOTHING_HERE = nothing_in_front(("jump",))
NOTHING_TO_JUMP = _NOTHING_HERE.text
KINDS = ("jump_gap", "jump_onto")
_UP = Vec3(0, 0, 1)


#: The most the top may fall away under a landing foot (metres): the contact IK's default
#: `motionwarp-ik-surface-reach`, the farthest it looks for that foot's surface below the landing.
LANDING_STEP = ContactIKSettings.ik_surface_reach


def _jump_run(asset):
    """Ground distance from the take-off target to the landing target, as the clip travels it."""
    between = authored_between(asset, 0, 1)
    return math.hypot(between.pos[0], between.pos[1])


class _Onto(_Provider):
    """A jump onto a ledge: measured and judged as a mantle is; JumpProvider gives it its assets."""

    kind = "jump_onto"
    keeps_answers = False   # the take-off must lie ahead of where the character stands: read at every query
    #                         (the landing on the top, which reads the measurement alone, is kept: _kept_landing)
    mirrored = False        # both feet take off together: no leading hand to mirror

    def __init__(self, probe, settings):
        self.probe, self.settings, self._runs = probe, settings, KeptCache(_MOST_ASSETS)

    read_run = staticmethod(_jump_run)

    def _targets(self, found, asset, refuse):
        radius, clearance = self.settings.capsule_radius, self.settings.clearance
        landing = self._kept_landing(found, asset, refuse)
        if isinstance(landing, Refusal):
            return landing
        landing = Point3(landing)
        # The take-off keeps the capsule clear of the face (a clip authored in place has no run of its own).
        run = max(self._run(asset), 2 * (radius + clearance))
        # The face is `distance` ahead along the facing: the take-off, `run` back from the landing, must be too.
        behind = run - (radius + clearance) - found.distance * math.cos(math.radians(found.approach_deg))
        if behind > 0.0:
            return refuse(f"too close to jump onto it (take-off {_metres(behind)} behind)", take_off_behind=behind)
        take_off = landing - found.inward * run
        take_off.z = found.ground
        h = heading(found.inward)
        return Interaction(self.kind, asset, [WarpTarget(take_off, h=h), WarpTarget(landing, h=h)], found.height,
                           found.depth, found.close_edge, found.far_edge, found.normal, found.node, -behind,
                           landing=landing)


    def _kept_landing(self, found, asset, refuse):
        """Where the feet land on the top (`_landing`), kept with a kept measurement (design 7, "Kept
        measurements") for this asset (the same object, its ranges, track and phases unchanged) and these
        settings: it reads the measurement alone, so a character walking up is judged once."""
        landing, again = self._kept_with(found, asset, self._landing, refuse)
        return _moved(landing, found.distance) if again and isinstance(landing, Refusal) else landing

    def _landing(self, found, asset, refuse):
        """The floor a capsule radius onto the top, or the Refusal saying why there is no room to land."""
        radius, clearance = self.settings.capsule_radius, self.settings.clearance
        needed = 2 * radius + clearance
        if found.depth < needed:
            return refuse(f"no room to land on top ({_metres(found.depth)} deep < {_metres(needed)})", room=needed)
        landing = self._stand_on_top(found, found.close_edge + found.inward * (radius + clearance), refuse, "land")
        if isinstance(landing, Refusal):
            return landing
        return self._under_the_feet(found, asset, landing, refuse)

    def _under_the_feet(self, found, asset, landing, refuse):
        """`landing`, or a Refusal when the top falls away under a foot the clip lands (its target contacts
        of the last phase, at their offsets from the landing): no floor within LANDING_STEP below the
        landing there (a step's edge beside the line, the valley between two logs of a stack). The contact
        IK looks no farther for a landing foot's surface (`motionwarp-ik-surface-reach`): the foot would
        stay level with the top, over the drop."""
        last = asset.phases[-1].name
        for contact in asset.contacts:
            if contact.touches != "target" or contact.phase != last:
                continue
            at = landing + _across(found, Vec3(contact.offset[0], contact.offset[1], 0.0))
            floor = self.probe.ray(Point3(at.x, at.y, found.top + self.settings.clearance),
                                   Point3(at.x, at.y, landing.z - LANDING_STEP))
            if floor is None:
                return refuse(f"no room to land on top (the top falls away under the {contact.joint}, more than "
                              f"{_metres(LANDING_STEP)} below the landing)", landing_step=LANDING_STEP)
        return landing


class JumpProvider(_Asked):
    """Across a gap ahead, else onto the ledge in front: take-off and landing targets, with room checked."""

    def __init__(self, probe, assets, space=None, *, warp_settings=None, **settings):
        """`assets` as for the other providers: re-read at every query."""
        self.probe, self.space, self._given = probe, space, assets
        self.warp_settings = warp_settings
        self.settings = ProviderSettings.from_prc(**settings)
        self._onto = _Onto(probe, self.settings)
        if not self._own(assets, "jump_gap") and not self._own(assets, "jump_onto"):
            raise UsageError(f"no jump asset among {[getattr(a, 'clip', a) for a in assets]}: a jump asset has "
                             f"\"traversal\": {{\"kind\": \"jump_gap\" or \"jump_onto\", ...}}")

    @property
    def assets(self):
        return self._own(self._given, "jump_gap") + self._own(self._given, "jump_onto")

    @staticmethod
    def _own(given, kind):
        return [asset for asset in given if asset.traversal is not None and asset.traversal.kind == kind]

    def _answer(self, pos, h, given):
        gaps, ontos = self._own(given, "jump_gap"), self._own(given, "jump_onto")
        pos, forward = Point3(pos), facing(h)
        found = measure(self.probe, self.settings, pos, h, _highest(ontos)) if ontos else None
        limit = found.distance if found is not None else self.settings.reach
        if gaps:
            edge = self._edge(pos, forward, limit)
            if edge is not None:
                return self._across(pos, forward, edge, gaps)
        if found is not None:
            return self._onto._judge(found, ontos)
        return Refusal(causes=(_NOTHING_HERE,))

    # --- gaps
    def _ground(self, point, feet):
        """Whether there is ground under `point` the feet could walk on (within max_drop below `feet`)."""
        return self.probe.drop(point.x, point.y, feet + self.settings.face_low, feet - self.settings.max_drop)

    def _edge(self, pos, forward, limit, side=0.0):
        """Where the ground ahead ends on the line `side` metres right of the character's, within `limit`
        metres (to edge_tolerance): (edge point on the ground, ground z), or None when it does not end."""
        step, right = self.settings.probe_step, Vec3(forward.y, -forward.x, 0)
        start = pos + right * side
        inside, z = 0.0, pos.z
        s = step
        while s <= limit + 1e-9:
            below = self._ground(start + forward * s, pos.z)
            if below is None:
                break
            inside, z = s, below[0]
            s += step
        else:
            return None
        outside = s
        while outside - inside > self.settings.edge_tolerance:
            middle = (inside + outside) / 2
            below = self._ground(start + forward * middle, pos.z)
            if below is None:
                outside = middle
            else:
                inside, z = middle, below[0]
        point = start + forward * inside
        return Point3(point.x, point.y, z)

    def _square(self, pos, forward, edge):
        """The direction across the gap: square to the edge line through the character's and two side
        lines' edges (the facing where a side line finds no edge)."""
        radius = self.settings.capsule_radius
        left = self._edge(pos, forward, self.settings.reach + radius, -radius)
        right = self._edge(pos, forward, self.settings.reach + radius, radius)
        if left is None or right is None:
            return Vec3(forward)
        along = Vec3(right.x - left.x, right.y - left.y, 0)
        if along.length() < 1e-6:
            return Vec3(forward)
        along.normalize()
        inward = Vec3(-along.y, along.x, 0)
        return inward if inward.dot(forward) > 0 else -inward

    def _across(self, pos, forward, edge, assets):
        settings = self.settings
        radius, height, clearance = settings.capsule_radius, settings.capsule_height, settings.clearance
        inward = self._square(pos, forward, edge)
        approach = math.degrees(math.acos(max(-1.0, min(1.0, inward.dot(forward)))))
        distance = (edge - pos).dot(forward)
        numbers = {"distance": distance}

        def refuse(cause, **more):
            return Refusal.of(cause, None, distance, "jump_gap", {**numbers, **more})

        if approach > settings.max_approach_deg:
            return refuse(f"not facing the gap ({approach:.1f}° > {settings.max_approach_deg:.0f}°)",
                          approach_deg=approach)
        low = min(a.traversal.height[0] for a in assets)
        high = max(a.traversal.height[1] for a in assets)
        widest = max(a.traversal.depth[1] for a in assets)
        # Ground is looked for as far as a top is scanned past the widest gap, so one a little too
        # wide to jump says so ("too wide"), and only open space is "no landing".
        looked = widest + settings.max_scan_depth
        far = self._far_edge(edge, inward, low, high, looked)
        if far is None:
            return refuse(f"no landing across the gap (none within {_metres(looked)})", gap=looked)
        gap, rise = (far - edge).dot(inward), round(far.z - edge.z, 4)
        numbers.update(gap=gap, height=rise)
        fitting = [a for a in assets if a.traversal.fits(rise, gap)]
        if not fitting:
            if gap > widest:
                return refuse(Cause("too wide", "jump across", gap, widest))
            return refuse(f"no jump clip fits a {_metres(gap)} gap {_metres(rise)} up")
        asset = min(fitting, key=lambda a: abs(a.traversal.centre[1] - gap) + abs(a.traversal.centre[0] - rise))
        reach = max(_jump_run(asset), gap + radius + clearance)
        spot = edge + inward * reach
        ground = self.probe.ray(Point3(spot.x, spot.y, edge.z + high + clearance),
                                Point3(spot.x, spot.y, edge.z + low - clearance))
        if ground is None or incline_deg(ground.normal) > settings.max_incline_deg:
            return refuse(f"no landing ground {_metres(reach)} from the edge", landing_distance=reach)
        landing = Point3(ground.pos)
        lift = _UP * (height / 2 + clearance + max(0.0, landing.z - edge.z))
        flight = self.probe.sweep_capsule(radius, height, edge + lift, Point3(landing.x, landing.y, edge.z) + lift)
        blocker = flight.node if flight is not None else self.probe.capsule_overlaps(
            radius, height, landing + _UP * (height / 2 + clearance))
        if blocker is not None:
            return refuse(f"no room to jump the gap (blocked by {blocker.getName() or 'something'})")
        h = heading(inward)
        return Interaction("jump_gap", asset, [WarpTarget(edge, h=h), WarpTarget(landing, h=h)], rise, gap,
                           edge, far, -inward, ground.node, distance, landing=landing)

    def _far_edge(self, edge, inward, low, high, widest):
        """The first ground across from `edge` whose height above it is within [low, high] (to edge_tolerance)."""
        settings = self.settings
        top, bottom = edge.z + high + settings.clearance, edge.z + low - settings.clearance

        def ground(s):
            point = edge + inward * s
            return self.probe.drop(point.x, point.y, top, bottom)

        outside, s = 0.0, settings.probe_step
        while s <= widest + 1e-9:
            if ground(s) is not None:
                break
            outside, s = s, s + settings.probe_step
        else:
            return None
        inside = s
        while inside - outside > settings.edge_tolerance:
            middle = (inside + outside) / 2
            if ground(middle) is None:
                outside = middle
            else:
                inside = middle
        point = edge + inward * inside
        return Point3(point.x, point.y, ground(inside)[0])
