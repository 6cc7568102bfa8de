"""Measuring the obstacle in front of a character from the geometry a probe hits (DESIGN.md 7).

The face is found by sweeping a knee-to-chest capsule along the facing. The top is sampled
by down rays from just in front of the face inward, against the face normal, and each edge
is placed by binary search between a ray that lands on the top and one that does not. The
close edge is where the top first becomes walkable (incline at most `max_incline_deg`): the
top of the face on a box, the inner line of a chamfer, the shoulder of a lying log. The far
edge is where the walkable top ends (a drop, a step up or a slope too steep), so round,
sloped and bevelled obstacles are measured the same way as boxes.
"""
import dataclasses
import math

from panda3d.core import NodePath, Point3, Vec3

_UP = Vec3(0, 0, 1)
#: Faces whose normals differ by more than this are different faces (a corner), not one rough face.
_SAME_FACE_DEG = 10.0


@dataclasses.dataclass
class Measurement:
    """What the probe found in front of a character; edges are None where there are none."""

    node: NodePath            # the scene node whose face is in front
    distance: float           # metres from the character to the face, along its facing
    normal: Vec3              # the face's horizontal unit normal, pointing at the character
    approach_deg: float       # angle between the character's facing and minus the normal
    ground: float             # z of the character's feet
    taller_than: float = None  # too tall to look for a top: the face goes on above this height over the feet
    too_tall: float = None     # ... and its top's height over the feet, when one was seen (else None)
    close_edge: Point3 = None  # where the top becomes walkable
    far_edge: Point3 = None    # where the walkable top ends (None: deeper than the scan)
    top: float = None          # highest z of the walkable top
    depth: float = None        # close to far edge, horizontally against the normal
    incline_deg: float = None  # steepest incline of the walkable top, or the least steep one seen (None: none)

    @property
    def height(self):
        """Highest point of the top above the character's feet (to 0.1 mm, so 1.5 m reads 1.5, not 1.5000001)."""
        return round(self.top - self.ground, 4)

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
    """
    pos = Point3(pos)
    forward = facing(h)
    face = _face(probe, settings, pos, forward)
    if face is None:
        return None
    return _from_face(probe, settings, pos, forward, *face, max_height, again=True)


def _from_face(probe, settings, pos, forward, hit, normal, max_height, again):
    """The Measurement across a face met at `hit` with horizontal `normal`.

    On a corner the sweep's normal points from the corner to the capsule, not along either face;
    the face actually under the close edge then gives the normal, and the scan runs `again` across it.
    """
    along = forward.dot(normal)
    if along > -1e-3:  # the face under the edge runs along the way or turns away: beside a corner
        return Measurement(hit.node, (hit.pos - pos).dot(forward), normal, math.degrees(math.acos(-along)), pos.z)
    distance = (hit.pos - pos).dot(normal) / along
    found = Measurement(hit.node, distance, normal, math.degrees(math.acos(min(1.0, -along))), pos.z)
    if found.approach_deg > settings.max_approach_deg:
        return found
    scan = _TopScan(probe, settings, pos + forward * distance, found, max_height, hit.pos.z)
    scan.run()
    edge_face = scan.edge_face
    if again and edge_face is not None:
        turned = _horizontal(edge_face.normal)
        if turned is not None and turned.dot(normal) < math.cos(math.radians(_SAME_FACE_DEG)):
            return _from_face(probe, settings, pos, forward, edge_face, turned, max_height, again=False)
    return found


def _face(probe, settings, pos, forward):
    """The first non-walkable surface a knee-to-chest capsule meets along `forward`: (hit, normal)."""
    low, high = settings.face_low, settings.face_high
    centre = pos + _UP * ((low + high) / 2)
    hit = probe.sweep_capsule(settings.face_radius, high - low, centre, centre + forward * settings.reach)
    if hit is None:
        return None
    normal = _horizontal(hit.normal)
    if normal is None or hit.normal.z >= math.cos(math.radians(settings.max_incline_deg)):
        return None  # the floor, or a slope the character walks up
    return hit, normal


def _horizontal(vector):
    flat = Vec3(vector.x, vector.y, 0)
    if flat.length() < 1e-3:
        return None
    flat.normalize()
    return flat


class _TopScan:
    """Down rays across the top from the face inward, filling a Measurement's edges, top and depth."""

    def __init__(self, probe, settings, face_point, found, max_height, face_z):
        self.probe, self.settings, self.found = probe, settings, found
        self.origin = Point3(face_point.x, face_point.y, 0)
        self.inward = found.inward
        self.slope = math.tan(math.radians(settings.max_incline_deg))
        self.min_up = math.cos(math.radians(settings.max_incline_deg))
        self.lowest_top = found.ground + settings.face_low
        self.floor = found.ground - settings.max_drop - 0.1
        # Rays start below anything hanging over the face (a low ceiling over a ledge).
        ceiling_from = face_point + found.normal * settings.face_radius + _UP * settings.face_low
        ceiling = probe.ray(ceiling_from, Point3(ceiling_from.x, ceiling_from.y, found.ground + settings.max_look_up))
        self.above = (ceiling.pos.z - 0.01) if ceiling is not None else found.ground + settings.max_look_up
        self.start = min(self.above, found.ground + max_height + 0.5)
        self.most_up = None  # the least steep top seen, as the cos of its incline
        self.edge_face = None  # the face just under the close edge, where a ray met it
        self.face_z = max(face_z, self.lowest_top)  # where the sweep met the face

    def sample(self, s, start=None):
        """(z, cos of the incline) of the surface under the point `s` metres in from the face, or None."""
        return self.probe.drop(self.origin.x + self.inward.x * s, self.origin.y + self.inward.y * s,
                               self.start if start is None else start, self.floor)

    def walkable(self, sample):
        if sample is None or sample[0] < self.lowest_top:
            return False
        if self.most_up is None or sample[1] > self.most_up:
            self.most_up = sample[1]
        return sample[1] >= self.min_up

    def _edge(self, outside, inside, inside_sample, test, hint=None):
        """Binary search for an edge between `outside` (s off the top) and `inside` (s on it): (s, sample).

        `test(s, inside, inside_sample)` says whether `s` is on the top (and its sample). A `hint`
        (where a horizontal ray met the face) is tried first, a tolerance either side: on a
        vertical face that brackets the edge with two rays instead of a full search.
        """
        tolerance = self.settings.edge_tolerance
        toward = 1.0 if inside > outside else -1.0
        tries = [hint + toward * tolerance / 2, hint - toward * tolerance / 2] if hint is not None else []
        while abs(inside - outside) > tolerance:
            s = tries.pop(0) if tries else (inside + outside) / 2
            if not min(inside, outside) < s < max(inside, outside):
                continue
            on_top, sample = test(s, inside, inside_sample)
            if on_top:
                inside, inside_sample = s, sample
            else:
                outside = s
        return inside, inside_sample

    def _close_test(self, s, inside, inside_sample):
        sample = self.sample(s, self.close_start(s))
        return self.walkable(sample), sample

    def _far_test(self, s, inside, inside_sample):
        ds = abs(s - inside)
        sample = self.sample(s, self.next_start(inside_sample, ds))
        return self._continues(inside_sample, ds, sample), sample

    def _face_between(self, s_from, s_to, z):
        """The Hit of a horizontal ray from `s_from` to `s_to` at height `z` on a face, or None."""
        start, end = self.origin + self.inward * s_from, self.origin + self.inward * s_to
        return self.probe.ray(Point3(start.x, start.y, z), Point3(end.x, end.y, z))

    def _along(self, hit):
        """How far in from the face (s) a hit lies, or None for no hit."""
        return None if hit is None else (hit.pos - self.origin).dot(self.inward)

    def next_start(self, reference, ds):
        """Where a ray `ds` past a top sample starts: just above the steepest walkable rise, below any ceiling."""
        return min(self.start, reference[0] + ds * self.slope + self.settings.clearance)

    def face_top(self):
        """A height just above the top of the face: the first of horizontal rays one probe step apart,
        from where the sweep met it up, that meets no face within a step of it; None when the face goes on up to
        where the rays start (too tall to look for a top). Stopping at the first gap keeps the top
        search under a roof or slab further up."""
        front = self.origin + self.found.normal * self.settings.face_radius
        back = self.origin + self.inward * self.settings.probe_step
        z = self.face_z + self.settings.probe_step
        while z <= self.start:
            if self.probe.ray(Point3(front.x, front.y, z), Point3(back.x, back.y, z)) is None:
                return z
            z += self.settings.probe_step
        return None

    def close_start(self, s):
        """Where a ray `s` in from the face starts while the close edge is looked for: above the face
        top plus the steepest walkable rise, below anything hanging higher."""
        return min(self.start, self.gap + s * self.slope + self.settings.clearance)

    def run(self):
        settings, found = self.settings, self.found
        step = settings.probe_step
        self.gap = self.face_top()
        if self.gap is None:
            found.taller_than = self.start - found.ground
            seen = self.sample(step, self.above)
            if seen is not None and seen[0] > self.start:
                found.too_tall = seen[0] - found.ground
            return
        # The close edge: the first walkable sample (the first just inside the face, for thin walls
        # and fences), then the edge between it and the one before.
        previous, s, close = 0.0, 2 * settings.edge_tolerance, None
        while s <= settings.max_scan_depth:
            sample = self.sample(s, self.close_start(s))
            if self.walkable(sample):
                self.edge_face = self._face_between(-self.settings.face_radius, s, sample[0] - 2 * settings.edge_tolerance)
                close = self._edge(previous, s, sample, self._close_test, self._along(self.edge_face))
                break
            if sample is None or (sample[0] < self.lowest_top and s > step):
                break  # past the obstacle, never found a top to stand on
            previous, s = s, (s // step + 1) * step
        if close is None:
            # None: no ray met anything above the knee (the sweep touched a corner beside their line).
            found.incline_deg = math.degrees(math.acos(self.most_up)) if self.most_up is not None else None
            return
        # The far edge: follow the walkable top while it stays continuous, then bisect where it ends.
        good_s, good = close
        top, steepest = good[0], good[1]  # steepest: the least cos
        far = None
        while good_s < close[0] + settings.max_scan_depth:
            s = good_s + step
            sample = self.sample(s, self.next_start(good, step))
            if not self._continues(good, step, sample):
                hint = self._along(self._face_between(s, good_s, good[0] - 2 * settings.edge_tolerance))
                far = self._edge(s, good_s, good, self._far_test, hint)
                break
            good_s, good = s, sample
            top, steepest = max(top, good[0]), min(steepest, good[1])
        found.close_edge = self.point(*close)
        if far is not None:
            top, steepest = max(top, far[1][0]), min(steepest, far[1][1])
            middle = self.sample((close[0] + far[0]) / 2, self.next_start(close[1], (far[0] - close[0]) / 2))
            if self._continues(close[1], (far[0] - close[0]) / 2, middle):  # a round top peaks between the edges
                top = max(top, middle[0])
            found.far_edge = self.point(*far)
            found.depth = round(far[0] - close[0], 4)
        else:
            found.depth = settings.max_scan_depth
        found.top, found.incline_deg = top, math.degrees(math.acos(min(1.0, steepest)))

    def _continues(self, reference, ds, sample):
        return self.walkable(sample) and abs(sample[0] - reference[0]) <= ds * self.slope + self.settings.edge_tolerance

    def point(self, s, sample):
        at = self.origin + self.inward * s
        return Point3(at.x, at.y, sample[0])
