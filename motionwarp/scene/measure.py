"""Measuring the obstacle in front of a character from the geometry a probe hits (docs/design.md 7).

The face is found by sweeping a knee-to-chest capsule along the facing. The top is sampled
by down rays from just in front of the face inward, against the face normal, and each edge
is placed, to `edge_tolerance`, between a ray that lands on the top and one that does not
(aiming where the surfaces they met meet, or halving). The
close edge is where the top first becomes walkable (incline at most `max_incline_deg`): the
top of the face on a box, the inner line of a chamfer, the shoulder of a lying log. The far
edge is where the walkable top ends (a drop, a step up or a slope too steep), so round,
sloped and bevelled obstacles are measured the same way as boxes.
"""
from typing import Optional
import copy
import dataclasses
import math
import weakref

from panda3d.core import NodePath, Point3, Vec3

from .kept import SAME_H, SAME_POS, KeptCache, KeptLine, LineKey  # noqa: F401 (SAME_H: where callers read both)

_UP = Vec3(0, 0, 1)
#: Faces whose normals differ by more than this are different faces (a corner), not one rough face.
_SAME_FACE_DEG = 10.0
#: A face turned more than this from facing the character (degrees) is a side it can only brush.
_SIDE_DEG = 60.0
#: The lower of the rays along the character's line, above the knee (face_low), metres.
_ABOVE_KNEE = 0.05
#: Where the top's ends are looked for: this far behind the close edge (m), down to this far under the top (m).
_INSIDE_EDGE, _OFF_TOP = 0.05, 0.05
#: Halvings that find a top's end (a capsule radius of 0.3 m: to 1 cm).
_END_STEPS = 5
#: Shortest face sweep worth making before the hit of the ray along its axis (metres).
_SWEEP_MARGIN = 0.01
#: How far the face sweep's box stops before the plane its axis ray met (metres): more than the 1 mm
#: Bullet pads a flat triangle's box with (btOptimizedBvh).
_FACE_GAP = 5e-3
#: How far inside a corner met beside the rays' line the top is measured again (metres).
_INTO_CORNER = 0.01
#: How far below the lowest height that passes its test a down ray ends (metres), for Bullet's rounding.
_BELOW = 1e-3
#: How far above a jutting lid's underside the ray that finds the lid's outer face goes (metres).
_LID_ABOVE = 0.01
#: How far either side of the line the top is looked for where the line runs in a groove or seam, or
#: between two logs of a stack (metres: a hand's width, then where the hands go).
ACROSS = (-0.05, 0.05, -0.2, 0.2)
#: A dip in the top no deeper than the knee (face_low) that the top rises out of again is bridged (a sunk
#: lid, a groove); one deeper (a gap between planks) only when narrower than _GAP (metres). Rays across a
#: dip are _BRIDGE_STEP apart.
_GAP, _BRIDGE_STEP = 0.15, 0.05
#: How far the face sweep and its axis ray go at least (metres), whatever the reach (see _face).
LOOK_AHEAD = 4.0
#: A face a sweep met is swept again from the line's mark (every _GRID metres) at least _REFIT before it.
_GRID, _REFIT = 0.01, 0.05


@dataclasses.dataclass
class Measurement:
    """What the probe found in front of a character; edges are None where there are none."""

    node: NodePath            # the scene node whose face is in front
    distance: float           # metres from the character to the face, along its facing
    normal: Vec3              # the face's horizontal unit normal, pointing at the character
    approach_deg: float       # angle between the character's facing and minus the normal
    ground: float             # z of the character's feet
    taller_than: Optional[float] = None  # too tall to look for a top: the face goes on above this height over the feet
    too_tall: Optional[float] = None     # ... and its top's height over the feet, when one was seen (else None)
    close_edge: Optional[Point3] = None  # where the top becomes walkable
    far_edge: Optional[Point3] = None    # where the walkable top ends (None: deeper than the scan)
    top: Optional[float] = None          # highest z of the walkable top
    depth: Optional[float] = None        # close to far edge, horizontally against the normal
    incline_deg: Optional[float] = None  # steepest incline of the walkable top, or the least steep one seen (None: none)
    #: On a kept measurement (static probe), the providers' answers to it, shared by its copies.
    answers: Optional[dict] = dataclasses.field(default=None, repr=False, compare=False)
    #: On a kept measurement, a weak reference to where it was made and how far along the line it holds
    #: (the KeptLine, which holds the measurement: weak, so a line the cache drops is freed at once, not
    #: left for the cyclic collector). `kept_line()` reads it.
    line: Optional[object] = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def height(self):
        """Highest point of the top above the character's feet (to 0.1 mm, so 1.5 m reads 1.5, not 1.5000001)."""
        return round(self.top - self.ground, 4)

    def kept_line(self):
        """The KeptLine this kept measurement was filed under (None when not kept, or no longer)."""
        return self.line() if self.line is not None else None

    def moved(self, along):
        """A copy for a character `along` metres further along the line (its distance that much shorter)."""
        again = copy.copy(self)
        again.distance = self.distance - along
        return again

    @property
    def inward(self):
        """The horizontal direction across the obstacle (minus the face normal)."""
        return -self.normal


def heading(direction):
    """Panda3D heading (degrees) of a horizontal direction: 0 faces +Y."""
    return math.degrees(math.atan2(-direction.x, direction.y))


def incline_deg(normal):
    """How far a surface with this normal tilts from level (degrees; back faces count as front ones)."""
    return math.degrees(math.acos(max(-1.0, min(1.0, abs(normal.z) / max(normal.length(), 1e-9)))))


def facing(h):
    """The horizontal unit vector a heading of `h` degrees faces."""
    return Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0)


def measure(probe, settings, pos, h, max_height):
    """The Measurement of what stands in front of a character at `pos` facing heading `h`, or None.

    None means nothing within reach but the floor (or a walkable slope). `max_height` (above the
    feet) bounds the search for the top: the highest obstacle any clip at hand can take.

    On a static probe, what was measured along the character's line is kept and answered again (a
    copy, its distance from the new place) when every ray and sweep would meet what they met (see
    _Held): another provider asking the same (a jump onto what a vault measured, with a longer
    reach), another character on the same line, or a character walking up to a face its axis ray met.
    """
    pos = Point3(pos)
    forward = facing(h)
    if nothing_near(probe, settings, pos, forward):
        return None
    lines = probe.kept(_LINES)
    if lines is not None:
        key = LineKey(_but_reach(settings), *LineKey.placed(pos, h, forward))
        found = _on_kept_line(lines, key, pos, h, settings.reach, max_height)
        if found is not None:
            return found
    held = _Held(settings.reach)
    face = _face(probe, settings, pos, forward, held)
    if face is None:
        held.only_here()
        found = _within_width(probe, settings, pos, forward, max_height, held)
    else:
        found = _from_face(probe, settings, pos, forward, *face, max_height, True, held)
    if lines is not None and found is not None:
        found.answers = {}
        line = KeptLine(key, pos.x, pos.y, pos.z, h, forward.x, forward.y, max_height, held, found)
        found.line = weakref.ref(line)
        lines.keep(key, line)
    return found


#: Most measurements kept per line (key), and lines kept.
_MOST_LINES, _MOST_KEYS = 4, 256
#: How far above the highest top the assets take (max_height over the feet) the top search starts (metres).
_SEARCH_ABOVE = 0.5


def _kept_lines():
    """The probe's store of measurements kept along lines (`probe.kept(_LINES)`)."""
    return KeptCache(_MOST_KEYS, _MOST_LINES)


_LINES = _kept_lines


def _but_reach(settings):
    """The settings' values but the reach, which a kept measurement may be shared across (see _Held)."""
    return tuple(value for name, value in vars(settings).items() if name != "reach")


class _Held:
    """Where a measurement holds, every ray and sweep meeting what they met:

    - `travel`: how far the character may step forward along its line (see _face);
    - `length`, `met`: the face sweep's length and where it met the face: any reach with the same
      sweep length (LOOK_AHEAD) and `met` within it finds the same (None: only this reach);
    - `need`, `exact`: the bounds on the top search (max_height) that leave every ray as it was: the
      search must start at least `need` high (ground + max_height + _SEARCH_ABOVE >= need), or, when a ray was
      cut at the search's start, only the max_height `exact` gives the same.
    """

    __slots__ = ("reach", "travel", "length", "met", "need", "exact")

    def __init__(self, reach):
        self.reach, self.need, self.exact = reach, -math.inf, None
        self.only_here()

    def only_here(self):
        """Measured from beside the character's line, or by sweeps as wide as its body, or by one that
        went to the reach: only this place and reach hold."""
        self.travel, self.length, self.met = 0.0, None, self.reach

    def holds(self, reach, max_height, measured_height, ground):
        """Whether a query with `reach` makes the same sweeps and meets the same face, and its top search
        bound `max_height` (the feet at `ground`; the measurement's bound was `measured_height`) starts no
        ray lower."""
        if self.length is None:
            same = reach == self.reach
        else:
            same = self.met <= reach and max(reach, LOOK_AHEAD) == self.length
        return same and (max_height == measured_height
                         or (self.exact is None and ground + max_height + _SEARCH_ABOVE >= self.need))

    def scanned(self, scan, max_height):
        """Take in what a finished _TopScan needed of the search's start."""
        if not scan.cut:
            self.need = max(self.need, scan.reached)
        elif scan.start == scan.above:   # cut by a ceiling, not by max_height: any higher bound cuts it there too
            self.need = max(self.need, scan.above)
        else:
            self.exact = max_height


def _on_kept_line(lines, key, pos, h, reach, max_height):
    """A copy of a kept Measurement that holds for a character at `pos` facing `h`, or None."""
    for line in lines.get(key):
        along = line.along(pos, h, reach, max_height)
        if along is not None:
            return line.found.moved(along)
    return None


def _within_width(probe, settings, pos, forward, max_height, held):
    """What the face sweep passed beside but the character's body would meet (out to its half width,
    `capsule_radius`: a post narrower than the character), measured in line with its near side, as
    the character would meet it; None when nothing is there, or something already stands beside
    the character at its start (a wall along the way), or it is not narrower than the character,
    or nothing faces the character in that line."""
    radius = settings.capsule_radius
    if radius <= settings.face_radius:
        return None
    face = _face(probe, settings, pos, forward, None, radius)
    if face is None or face[0].fraction <= 0.0:
        return None
    side = forward.cross(_UP)
    beside = (face[0].pos - pos).dot(side)
    shifted = pos + side * (beside + math.copysign(_INTO_CORNER, beside))
    face = _face(probe, settings, shifted, forward)
    if face is None or not _narrower(probe, face[0].pos - face[1] * _INTO_CORNER, side * math.copysign(1.0, beside),
                                     2 * radius):
        return None
    return _from_face(probe, settings, shifted, forward, *face, max_height, False, held)


def _narrower(probe, inside, out, width):
    """Whether what stands at `inside` (just behind its face, at its near side) ends less than `width`
    further `out`: a horizontal ray back from there meets its far side. Something as wide as the
    character or wider beside its way (a table passed by) is the path's to avoid, not a post to take."""
    return probe.blocked(inside + out * width, inside)


def _from_face(probe, settings, pos, forward, hit, normal, max_height, again, held, ends=None):
    """The Measurement across a face met at `hit` with horizontal `normal`; `held` takes in what its
    top scans needed (see _Held).

    On a corner the sweep's normal points from the corner to the capsule, not along either face;
    the face actually under the close edge then gives the normal, and the scan runs `again` across it.
    With `ends` (default: `again`), a line that meets the top near its end is moved in from it.
    """
    ends = again if ends is None else ends
    along = forward.dot(normal)
    if along > -1e-3:  # the face under the edge runs along the way or turns away: beside a corner
        beside = Measurement(hit.node, (hit.pos - pos).dot(forward), normal, math.degrees(math.acos(-along)), pos.z)
        return _brushed(probe, settings, pos, forward, hit.node, beside, max_height, held) if again else beside
    distance = (hit.pos - pos).dot(normal) / along
    found = Measurement(hit.node, distance, normal, math.degrees(math.acos(min(1.0, -along))), pos.z)
    if found.approach_deg > settings.max_approach_deg:
        if again and along > -math.cos(math.radians(_SIDE_DEG)):
            # The sweep's body met a side or a corner it does not face: what the line itself meets decides.
            return _brushed(probe, settings, pos, forward, hit.node, found, max_height, held)
        return found
    scan = _TopScan(probe, settings, pos + forward * distance, found, max_height, hit.pos.z)
    scan.run()
    held.scanned(scan, max_height)
    if again and found.close_edge is None and found.incline_deg is None and found.taller_than is None:
        # The sweep met a corner beside the rays' line (a post narrower than the character, within
        # its half width): measure again in line with the corner, just inside it.
        side = forward.cross(_UP)
        beside = (hit.pos - pos).dot(side)
        if abs(beside) <= settings.capsule_radius:
            shifted = pos + side * (beside + math.copysign(_INTO_CORNER, beside))
            face = _face(probe, settings, shifted, forward)
            if face is not None:
                held.only_here()
                return _from_face(probe, settings, shifted, forward, *face, max_height, False, held, ends=True)
    along_edge = _edge_direction(probe, pos, forward, found) if ends and found.close_edge is not None else None
    if along_edge is not None:
        shift = _off_the_end(probe, settings, along_edge, found)
        if abs(shift) > settings.edge_tolerance and _corner_in_line(probe, settings, pos, forward, found,
                                                                     along_edge, -math.copysign(1.0, shift)):
            # A corner turned toward the character: both its faces are faced, and it is climbed over along
            # the character's own line (moved to a capsule radius along one face, the warp would have to
            # carry the clip sideways and turn it toward that face).
            return _from_face(probe, settings, pos, forward, hit, -forward, max_height, False, held, ends=False)
        if abs(shift) > settings.edge_tolerance:   # the line meets the top near its end: in from it
            shifted = pos + along_edge * shift
            face = _face(probe, settings, shifted, forward)
            if face is not None:
                held.only_here()
                return _from_face(probe, settings, shifted, forward, *face, max_height, False, held)
    if found.close_edge is not None:
        _highest_across(probe, settings, found, forward)
    edge_face = scan.edge_face
    if again and edge_face is not None:
        turned = _horizontal(edge_face.normal)
        if turned is not None and turned.dot(normal) < math.cos(math.radians(_SAME_FACE_DEG)):
            across = _from_face(probe, settings, pos, forward, edge_face, turned, max_height, False, held, ends=True)
            if across.approach_deg > settings.max_approach_deg:   # the corner's other face is a side
                return _brushed(probe, settings, pos, forward, hit.node, across, max_height, held)
            return across
    return found


def _edge_direction(probe, pos, forward, found):
    """The horizontal direction along the face where the character's own line meets it, just below
    the top (a sweep that met a corner gives a normal from the corner, along neither face); None when
    the line meets no face of the obstacle there (a corner brushed: see _brushed)."""
    origin = Point3(pos.x, pos.y, found.close_edge.z - _OFF_TOP)
    hit = probe.ray(origin, origin + forward * (found.distance + _INSIDE_EDGE))
    normal = _horizontal(hit.normal) if hit is not None and hit.node == found.node else None
    return None if normal is None else normal.cross(_UP)


def _corner_in_line(probe, settings, pos, forward, found, along_edge, toward_end):
    """Whether the top's end `toward_end` (+1 or -1 along `along_edge`, the face the line meets) is a
    corner within the face sweep's radius of the character's line whose other face the character also
    faces (within `max_approach_deg`): a ray along the way that far beside the line, just under the
    top, meets the same obstacle on a face turned more than _SAME_FACE_DEG from the line's own."""
    start = Point3(pos.x, pos.y, found.close_edge.z - _OFF_TOP) + along_edge * (toward_end * settings.face_radius)
    hit = probe.ray(start, start + forward * (found.distance + settings.probe_step))
    other = _horizontal(hit.normal) if hit is not None and hit.node == found.node else None
    return (other is not None and other.dot(_UP.cross(along_edge)) < math.cos(math.radians(_SAME_FACE_DEG))
            and -forward.dot(other) >= math.cos(math.radians(settings.max_approach_deg)))


def _off_the_end(probe, settings, side, found):
    """How far to move the character's line along the close edge (`side`, horizontal) so that the top
    behind the edge reaches a capsule radius to either side of where the line meets it, where the hands
    go: 0 when it does, or when it reaches that far to neither side (narrower than the character: taken
    in line); else the move away from the nearer end, or to the middle between both ends when the top
    is narrower than two capsule radii there."""
    reach = settings.capsule_radius
    behind = found.close_edge + found.inward * _INSIDE_EDGE

    def on_top(offset):
        at = behind + side * offset
        return probe.drop(at.x, at.y, found.top + settings.probe_step, found.top - _OFF_TOP) is not None

    right, left = on_top(reach), on_top(-reach)
    if right == left:
        return 0.0
    toward = 1.0 if right else -1.0
    near_end = _last_on_top(on_top, -toward, 0.0, reach)      # the end on the far side of `toward`
    if on_top(toward * (2 * reach - near_end)):
        return toward * (reach - near_end)
    far_end = _last_on_top(on_top, toward, reach, 2 * reach - near_end)
    return toward * (far_end - near_end) / 2


def _last_on_top(on_top, sign, inside, outside):
    """The offset between `inside` (on the top) and `outside` (off it) on side `sign` where the top
    ends, to about 1 cm (5 halvings of a capsule radius)."""
    for _ in range(_END_STEPS):
        middle = (inside + outside) / 2
        if on_top(sign * middle):
            inside = middle
        else:
            outside = middle
    return inside


def _brushed(probe, settings, pos, forward, node, refused, max_height, held):
    """A side or a corner the character's body brushes: when its own line (rays along the way at knee
    and chest height) meets no part of that obstacle within reach, it walks past it (None: nothing in
    front, as a wider crate beside the way); when the line meets a face of it the character faces, that
    face is measured in line; else `refused` (it walks along the side: not facing it)."""
    held.only_here()
    for z in (settings.face_low + _ABOVE_KNEE, (settings.face_low + settings.face_high) / 2):
        start = pos + _UP * z
        hit = probe.ray(start, start + forward * settings.reach)
        if hit is None or hit.node != node:
            continue
        normal = _horizontal(hit.normal)
        if normal is None:
            continue
        if -forward.dot(normal) >= math.cos(math.radians(settings.max_approach_deg)):
            return _from_face(probe, settings, pos, forward, hit, normal, max_height, False, held, ends=True)
        return refused
    return None


def _highest_across(probe, settings, found, forward):
    """Raise the top and its edges to the highest walkable surface across the character's width
    (down rays half a capsule radius and a capsule radius either side, over the close edge, the
    middle and the far edge), up to a probe step higher: a top stepped or sloped across the way
    is as high as the body must clear; hands and feet find the surface under them."""
    side = forward.cross(_UP)
    ends = [found.close_edge] + ([found.far_edge] if found.far_edge is not None else [])
    if not _near_above(probe, ends, abs(side.x) * settings.capsule_radius, abs(side.y) * settings.capsule_radius,
                       found.top + settings.edge_tolerance, found.top + settings.probe_step):
        return   # no body reaches above the top there: every ray would meet nothing higher (most boxes)
    points = ends + ([(ends[0] + ends[1]) / 2] if len(ends) == 2 else [])
    while True:   # again from each raised top: a jagged top rises by steps (a broken column's pieces)
        highest = found.top
        for point in points:
            for out in (-1.0, -0.5, 0.5, 1.0):
                at = point + side * (out * settings.capsule_radius)
                hit = probe.ray(Point3(at.x, at.y, found.top + settings.probe_step), Point3(at.x, at.y, found.top + _BELOW))
                if (hit is not None and hit.normal.z >= math.cos(math.radians(settings.max_incline_deg))
                        and not _loose(hit.node, found.node, settings.capsule_radius)):
                    highest = max(highest, hit.pos.z)
        if highest <= found.top + settings.edge_tolerance:
            return
        found.top = highest
        for edge in ends:
            edge.z = highest


def _loose(node, obstacle, small):
    """Whether `node` is a loose thing lying on the obstacle's top (a cup on a table), not part of the top:
    another node whose footprint is less than `small` across both ways (hands and feet cannot go on it)."""
    if node == obstacle or node.isEmpty():
        return False
    bounds = node.getTightBounds(node.getTop())
    if bounds is None:
        return False
    low, high = bounds
    return high.x - low.x < small and high.y - low.y < small


def _near_above(probe, points, wide_x, wide_y, low, high):
    """Whether any body's geometry may reach above `low` (to `high`) over the ground plan around `points`
    (`wide_x` and `wide_y` metres either side): `probe.near` over that box from BOUNDS_PAD above `low`,
    where padded bounds stop before real surfaces. A hair of float rounding (0.1 mm) is kept on the near side."""
    lowest = low + probe.BOUNDS_PAD - 1e-4
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return probe.near((min(xs) - wide_x, min(ys) - wide_y, lowest), (max(xs) + wide_x, max(ys) + wide_y, max(high, lowest)))


def _face(probe, settings, pos, forward, held=None, radius=None):
    """The first non-walkable surface a knee-to-chest capsule (`radius`, default `face_radius`) meets
    within `reach` along `forward`: (hit, normal). `held` (a _Held) learns where the same answer holds."""
    low, high, reach = settings.face_low, settings.face_high, settings.reach
    radius = settings.face_radius if radius is None else radius
    centre, padding = pos + _UP * ((low + high) / 2), probe.capsule_padding(radius, high - low)
    # A ray along the capsule's axis goes first. Bullet tests every triangle the sweep's box meets, so
    # a sweep into the face costs as many triangles as the face has under the capsule (thousands on a
    # finely tessellated mesh). The sweep stops where its box (the capsule's, padded) is still _FACE_GAP
    # clear of the plane the ray met, short of touching it: when it meets nothing on the way, the
    # capsule's first contact lies beyond, and the ray's hit (same face, exact normal) stands for it.
    # The ray and the whole sweep go LOOK_AHEAD metres whatever the reach (what lies beyond it is
    # then left out), so providers with other reaches make the same sweeps and share what they met.
    length = max(reach, LOOK_AHEAD)
    ahead = probe.ray(centre, centre + forward * length)
    short = None if ahead is None else _clear_of(ahead, centre, forward, radius + padding)
    travel = None   # how far the character may step forward with the same answer (None: not at all)
    if short is not None and short > _SWEEP_MARGIN:
        hit = probe.sweep_capsule(radius, high - low, centre, centre + forward * short)
        if hit is not None:
            met = hit.fraction * short
        elif ahead.fraction * length <= reach or short >= reach:
            hit, met = ahead, ahead.fraction * length
            travel = short - _SWEEP_MARGIN - SAME_POS   # the same ray meets the same point (a hair for float32)
        else:   # the capsule's contact lies between the short sweep's end and the ray's hit, past `reach`
            hit = probe.sweep_capsule(radius, high - low, centre, centre + forward * reach)
            if held is not None:
                held.only_here()
                held = None
            met = 0.0 if hit is None else hit.fraction * reach
    else:   # nothing in line, or the capsule already at it: the whole sweep
        hit = probe.sweep_capsule(radius, high - low, centre, centre + forward * length)
        met = None if hit is None else hit.fraction * length
    if hit is None or met > reach:
        return None
    if held is not None:
        if travel is None:
            hit, met, travel = _swept_again(probe, radius, high - low, centre, forward, hit, met)
        held.travel = travel
        held.length, held.met = length, met + SAME_POS
    walkable = math.cos(math.radians(settings.max_incline_deg))
    if hit.normal.z >= walkable and ahead is not None and ahead.normal.z < walkable and ahead.fraction * length <= reach:
        # The capsule's foot met the walkable top of a step as high as the knee (the lowest log of a
        # stack): the face is what the axis ray meets above it.
        hit = ahead
        if held is not None:
            held.only_here()
    if hit.normal.z >= walkable:
        # The capsule's foot met the top edge of something just above the knee (a bed, a low rock): the
        # face is what a ray along the way just above the knee meets, when that is no walkable slope.
        start = pos + _UP * (low + _ABOVE_KNEE)
        knee = probe.ray(start, start + forward * reach)
        if knee is not None and knee.normal.z < walkable:
            hit = knee
            if held is not None:
                held.only_here()
    normal = _horizontal(hit.normal)
    if normal is None or hit.normal.z >= walkable:
        return None  # the floor, or a slope the character walks up
    return hit, normal


def _swept_again(probe, radius, height, centre, forward, hit, met):
    """(hit, met, travel): a sweep's contact met `met` metres ahead, swept again from a fixed point of the
    line, the first _GRID mark at least _REFIT before it (the marks counted from the line's point nearest
    the world origin), so every start on the line up to that mark meets the face the same: Bullet places
    a sweep's contact anew from every start (millimetres apart on a curved face or an edge). `travel`:
    how far the character may step forward with the same answer (none when too close for a mark)."""
    along = centre.x * forward.x + centre.y * forward.y
    mark = math.floor((along + met - _REFIT) / _GRID) * _GRID - along
    if mark < SAME_POS:
        return hit, met, 0.0
    start = centre + forward * mark
    again = probe.sweep_capsule(radius, height, start, start + forward * (2 * _REFIT + _GRID))
    if again is None:   # (not met within the window: Bullet's rounding at a grazing contact)
        return hit, met, 0.0
    return again, mark + again.fraction * (2 * _REFIT + _GRID), mark - SAME_POS


def _clear_of(hit, centre, forward, half):
    """How far the capsule's centre may travel along `forward` with its box (`half` wide either side)
    still _FACE_GAP clear, horizontally, of the plane of `hit`; None for a plane it does not approach."""
    normal = hit.normal
    closing = -forward.dot(normal)
    if closing < 1e-3:
        return None
    reach = half * (abs(normal.x) + abs(normal.y)) + _FACE_GAP   # the box's extent toward the plane
    return ((hit.pos - centre).dot(-normal) - reach) / closing


def nothing_near(probe, settings, pos, forward):
    """Nothing within the character's width along the way (`forward`, unit) for `settings.reach` (the probe's
    broad phase, no ray cast): every ray and sweep of `measure` would miss, so it is None; nor is there
    anything for a shorter reach."""
    return not _sweep_near(probe, settings, pos, forward, max(settings.face_radius, settings.capsule_radius))


def _sweep_near(probe, settings, pos, forward, radius):
    """`probe.near` for the box around the face sweep from `pos` (a capsule of `radius`, padded as Bullet
    pads it) and the ray along its axis: when not, both would miss."""
    low, high, reach = settings.face_low, settings.face_high, settings.reach
    padding = probe.capsule_padding(radius, high - low)
    side, x, y, z = radius + padding, pos.x, pos.y, pos.z   # plain floats: a character on open ground asks every frame
    end_x, end_y = x + forward.x * reach, y + forward.y * reach
    return probe.near((min(x, end_x) - side, min(y, end_y) - side, z + low - padding),
                      (max(x, end_x) + side, max(y, end_y) + side, z + high + padding))


def _horizontal(vector):
    flat = Vec3(vector.x, vector.y, 0)
    if flat.length() < 1e-3:
        return None
    flat.normalize()
    return flat


class _TopScan:
    """Down rays across the top from the face inward, filling a Measurement's edges, top and depth.

    A sample is (z, cos of the incline, unit normal) of the surface a ray met. Each ray
    ends just below the lowest surface that could pass its test (a walkable top, or one continuing
    the last sample): a hit lower down would fail the test as surely as no hit, and a short ray
    skips the floor and the obstacle's underside.
    """

    def __init__(self, probe, settings, face_point, found, max_height, face_z):
        self.probe, self.settings, self.found = probe, settings, found
        self._drop = probe.drop_normal
        self.origin = Point3(face_point.x, face_point.y, 0)
        self.inward = found.inward
        self.ox, self.oy, self.ix, self.iy = face_point.x, face_point.y, self.inward.x, self.inward.y
        self.slope = math.tan(math.radians(settings.max_incline_deg))
        self.min_up = math.cos(math.radians(settings.max_incline_deg))
        self.tolerance, self.clearance = settings.edge_tolerance, settings.clearance
        self.lowest_top = found.ground + settings.face_low
        self.floor = found.ground - settings.max_drop - 0.1
        # Rays start below anything hanging over the face (a low ceiling over a ledge), but over a
        # lid or cornice jutting out of the face by less than the capsule's radius: that is the top.
        ceiling, lid = None, None
        for out in (settings.face_radius, settings.face_radius + settings.capsule_radius):
            ceiling_from = face_point + found.normal * out + _UP * settings.face_low
            seen = probe.ray(ceiling_from, Point3(ceiling_from.x, ceiling_from.y, found.ground + settings.max_look_up))
            if seen is None or (ceiling is not None and seen.pos.z > ceiling.pos.z + settings.probe_step):
                lid = ceiling   # further out, nothing as low: the first one juts out of the obstacle
                ceiling = seen
                break
            ceiling = ceiling if ceiling is not None else seen
        self.above = (ceiling.pos.z - 0.01) if ceiling is not None else found.ground + settings.max_look_up
        if lid is not None:   # the top starts at the lid's outer face, where hands and feet meet it
            face_point, face_z = self._lid_face(face_point, lid, face_z)
        self.start = min(self.above, found.ground + max_height + _SEARCH_ABOVE)
        self.most_up = None  # the least steep top seen, as the cos of its incline
        self.edge_face = None  # the face just under the close edge, where a ray met it
        self.face_z = max(face_z, self.lowest_top)  # where the sweep met the face
        # What the search's start (`start`, from max_height) decided: the highest start a ray or the
        # face top search wanted, and whether one was cut at `start` (for _Held).
        self.reached, self.cut = -math.inf, False

    def _lid_face(self, face_point, lid, face_z):
        """(the point on the outer face of a lid jutting over the face at `face_point`, where a horizontal ray
        just above the lid's underside `lid` meets it; that height), or the face's own when none does.
        The Measurement's distance becomes the distance to the lid's face."""
        out = self.found.normal * (self.settings.face_radius + self.settings.capsule_radius)
        z = lid.pos.z + _LID_ABOVE
        start = Point3(face_point.x + out.x, face_point.y + out.y, z)
        seen = self.probe.ray(start, Point3(face_point.x, face_point.y, z))
        if seen is None:
            return face_point, face_z
        jut = (seen.pos - face_point).dot(self.found.normal)
        at = face_point + self.found.normal * jut
        self.origin = Point3(at.x, at.y, 0)
        self.ox, self.oy = at.x, at.y
        # The character meets the lid first: the distance is to its outer face, along the facing.
        self.found.distance -= jut / max(math.cos(math.radians(self.found.approach_deg)), 1e-3)
        return at, z

    def below_start(self, z):
        """A ray's start: `z`, or the search's start when that is lower."""
        if z > self.reached:
            self.reached = z
            if z > self.start:
                self.cut = True
                return self.start
        return z if z < self.start else self.start

    def sample(self, s, start, bottom):
        """The sample of the first surface from `start` down to `bottom` under the point `s` metres in
        from the face, or None."""
        if start <= bottom:
            return None
        x, y = self.ox + self.ix * s, self.oy + self.iy * s
        found = self._drop(x, y, start, bottom)
        if found is not None and found[1][2] < self.min_up:
            # the line runs in a groove, on a seam or between two logs: the top is what lies either side
            # within the hands' reach, if no more than knee-deep above what the line met
            dip = self.settings.face_low
            for side in ACROSS:
                beside = self._drop(x + self.iy * side, y - self.ix * side, start, bottom)
                if beside is not None and beside[1][2] >= self.min_up and found[0] < beside[0] <= found[0] + dip:
                    found = beside
                    break
        return None if found is None else (found[0], found[1][2], found[1])

    def walkable(self, sample):
        if sample is None or sample[0] < self.lowest_top:
            return False
        if self.most_up is None or sample[1] > self.most_up:
            self.most_up = sample[1]
        return sample[1] >= self.min_up

    def _edge(self, outside, outside_sample, inside, inside_sample, test, hint=None):
        """Search for an edge between `outside` (s off the top, its sample) and `inside` (s on it): (s, sample).

        `test(s, inside, inside_sample)` says whether `s` is on the top (and its sample). Each round
        aims at a guess of the edge and tests half a tolerance either side of it, so a right guess
        brackets the edge with two rays: first the `hint` (where a horizontal ray met the face: right
        on a vertical face), then where the surfaces under the bracket's ends meet (right where both
        are flat, as on a chamfer or a polygonal log), and the middle when there is no such guess or
        the last one did not halve the bracket.
        """
        tolerance = self.tolerance
        toward = 1.0 if inside > outside else -1.0
        guess = hint
        while abs(inside - outside) > tolerance:
            width = abs(inside - outside)
            if guess is None:
                tries = ((inside + outside) / 2,)
            else:
                tries = (guess + toward * tolerance / 2, guess - toward * tolerance / 2)
            for s in tries:
                if (inside - s) * (s - outside) <= 0:
                    continue  # not strictly inside the bracket
                on_top, sample = test(s, inside, inside_sample)
                if on_top:
                    inside, inside_sample = s, sample
                else:
                    outside, outside_sample = s, sample
            halved = abs(inside - outside) <= width / 2
            guess = self._meeting(outside, outside_sample, inside, inside_sample) if halved or guess is None else None
        return inside, inside_sample

    def _meeting(self, a, a_sample, b, b_sample):
        """Where the surfaces sampled at `a` and `b`, as lines across the top, meet: an s strictly between
        them, or None (no sample above the knee at either end, parallel, or meeting outside)."""
        if a_sample is None or b_sample is None or min(a_sample[0], b_sample[0]) < self.lowest_top:
            return None
        (za, _, na), (zb, _, nb) = a_sample, b_sample
        if na[2] < 1e-6 or nb[2] < 1e-6:
            return None
        ga, gb = self.rise(na), self.rise(nb)
        if abs(ga - gb) < 1e-6:
            return None
        s = (zb - za + ga * a - gb * b) / (ga - gb)
        return s if (s - a) * (b - s) > 0 else None

    def rise(self, normal):
        """How much a surface with this (upward) normal rises per metre inward."""
        return -(normal[0] * self.ix + normal[1] * self.iy) / normal[2]

    def _close_test(self, s, inside, inside_sample):
        sample = self.sample(s, self.close_start(s), self.lowest_top - _BELOW)
        return self.walkable(sample), sample

    def _far_test(self, s, inside, inside_sample):
        return self._continued(inside_sample, abs(s - inside), s)

    def _continued(self, reference, ds, s):
        """(whether the top goes on from the sample `reference` to `s`, `ds` further, the sample at `s`).

        The ray starts just above the steepest walkable rise from the reference, below any ceiling."""
        z, rise = reference[0], ds * self.slope
        bottom = z - rise - self.tolerance
        sample = self.sample(s, self.below_start(z + rise + self.clearance),
                             (bottom if bottom > self.lowest_top else self.lowest_top) - _BELOW)
        going_on = (sample is not None and sample[1] >= self.min_up and sample[0] >= self.lowest_top
                    and abs(sample[0] - z) <= rise + self.tolerance)  # walkable (the close edge is found), and close
        return going_on, sample

    def _face_between(self, s_from, s_to, z):
        """The Hit of a horizontal ray from `s_from` to `s_to` at height `z` on a face, or None."""
        start, end = self.origin + self.inward * s_from, self.origin + self.inward * s_to
        return self.probe.ray(Point3(start.x, start.y, z), Point3(end.x, end.y, z))

    def _along(self, hit):
        """How far in from the face (s) a hit lies, or None for no hit."""
        return None if hit is None else (hit.pos - self.origin).dot(self.inward)

    def face_top(self):
        """A height just above the top of the face: the first of horizontal rays one probe step apart,
        from where the sweep met it up, that meets no face within a step of it; None when the face goes on up to
        where the rays start (too tall to look for a top). Stopping at the first gap keeps the top
        search under a roof or slab further up."""
        front = self.origin + self.found.normal * self.settings.face_radius
        back = self.origin + self.inward * self.settings.probe_step
        z = self.face_z + self.settings.probe_step
        while z <= self.start:
            if not self.probe.blocked((front.x, front.y, z), (back.x, back.y, z)):
                self.below_start(z)
                return z
            z += self.settings.probe_step
        self.cut = True
        return None

    def close_start(self, s):
        """Where a ray `s` in from the face starts while the close edge is looked for: above the face
        top plus the steepest walkable rise, below anything hanging higher."""
        return self.below_start(self.gap + s * self.slope + self.clearance)

    def run(self):
        """Scan the top (face top, close edge, far edge) and record what was found in the Measurement."""
        found = self.found
        self.gap = self.face_top()
        if self.gap is None:
            found.taller_than = self.start - found.ground
            seen = self.sample(self.settings.probe_step, self.above, self.start)
            if seen is not None:
                found.too_tall = seen[0] - found.ground
            return
        close = self._close_edge()
        if close is None:
            # None: no ray met anything above the knee (the sweep touched a corner beside their line).
            found.incline_deg = math.degrees(math.acos(self.most_up)) if self.most_up is not None else None
            return
        self._record(close, *self._far_edge(close))

    def _close_edge(self):
        """(s, sample) of the close edge: the first walkable sample (the first just inside the face, for
        thin walls and fences), then the edge between it and the one before; None without a top.
        Within a step of the face, a ray goes down to the floor: whether it meets anything decides
        if the scan goes on."""
        settings, step, tolerance = self.settings, self.settings.probe_step, self.tolerance
        previous, before, s = 0.0, None, 2 * tolerance
        while s <= settings.max_scan_depth:
            sample = self.sample(s, self.close_start(s), self.floor if s <= step else self.lowest_top - _BELOW)
            previous, before, s, sample = self._rim(previous, before, s, sample)
            if self.walkable(sample):
                self.edge_face = self._face_between(-settings.face_radius, s, sample[0] - 2 * tolerance)
                return self._edge(previous, before, s, sample, self._close_test, self._along(self.edge_face))
            if sample is None or (sample[0] < self.lowest_top and s > step):
                return None  # past the obstacle, never found a top to stand on
            previous, before, s = s, sample, (s // step + 1) * step
        return None

    def _rim(self, previous, before, s, sample):
        """(previous, its sample, s, its sample) around the first walkable top between `previous` (off the
        top) and `s`, looked for every _BRIDGE_STEP, else as given: a rim or frame narrower than a probe
        step in front of a sunk lid is where the top starts, not the lid behind it."""
        between = previous + _BRIDGE_STEP
        while between < s - _BRIDGE_STEP / 2:
            nearer = self.sample(between, self.close_start(between), self.lowest_top - _BELOW)
            if self.walkable(nearer):
                return between - _BRIDGE_STEP, None, between, nearer
            between += _BRIDGE_STEP
        return previous, before, s, sample

    def _far_edge(self, close):
        """(far edge (s, sample) or None when deeper than the scan, highest top z, least cos of its
        incline): follows the walkable top from the close edge while it stays continuous, then
        searches where it ends."""
        step, tolerance = self.settings.probe_step, self.tolerance
        good_s, good = close
        top, steepest = good[0], good[1]  # steepest: the least cos
        while good_s < close[0] + self.settings.max_scan_depth:
            s = good_s + step
            going_on, sample = self._continued(good, step, s)
            if not going_on:
                bridged = self._bridge(good_s, good)
                if bridged is not None:
                    good_s, good = bridged
                    continue
                # Where the surfaces meet when the top turns steep (a log's shoulder); else where a
                # horizontal ray meets the face the top ends at.
                hint = self._meeting(s, sample, good_s, good)
                if hint is None:
                    hint = self._along(self._face_between(s, good_s, good[0] - 2 * tolerance))
                return self._edge(s, sample, good_s, good, self._far_test, hint), top, steepest
            good_s, good = s, sample
            if good[0] > top:
                top = good[0]
            if good[1] < steepest:
                steepest = good[1]
        return None, top, steepest

    def _bridge(self, good_s, good):
        """(s, sample) where the top goes on past a dip or gap behind `good` (at `good_s`): a sunk lid, a
        groove, a gap between planks (see _GAP); None when it does not (the top ends there)."""
        z, dip = good[0], self.settings.face_low
        resume = self.settings.probe_step * self.slope + self.tolerance
        # A knee deep, even where that is below the knee (a bridge's deck between its rails, the soil in
        # a pot below its rim), but short of the ground: ground between two obstacles is no dip.
        bottom = max(z - dip, self.found.ground + self.clearance) - _BELOW
        deep_from, s = None, good_s + _BRIDGE_STEP
        while s < good_s + self.settings.max_scan_depth:
            sample = self.sample(s, self.below_start(z + resume + self.clearance), bottom)
            if sample is None:
                if deep_from is None:
                    deep_from = s - _BRIDGE_STEP
                if s - deep_from > _GAP:
                    return None
            else:
                deep_from = None
                if sample[1] >= self.min_up and abs(sample[0] - z) <= resume:
                    return s, sample
            s += _BRIDGE_STEP
        return None

    def _record(self, close, far, top, steepest):
        """Fill the Measurement's edges, depth, top and incline from the edges found."""
        found = self.found
        found.close_edge = self.point(*close)
        if far is not None:
            top, steepest = max(top, far[1][0]), min(steepest, far[1][1])
            going_on, middle = self._continued(close[1], (far[0] - close[0]) / 2, (close[0] + far[0]) / 2)
            if going_on:  # a round top peaks between the edges
                top = max(top, middle[0])
            found.far_edge = self.point(*far)
            found.depth = round(far[0] - close[0], 4)
        else:
            found.depth = self.settings.max_scan_depth
        found.top, found.incline_deg = top, math.degrees(math.acos(min(1.0, steepest)))

    def point(self, s, sample):
        at = self.origin + self.inward * s
        return Point3(at.x, at.y, sample[0])
