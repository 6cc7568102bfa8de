"""Generated irregular props (logs, sloped lids, steps, grooved planks, jutting lids, stacks,
narrow posts, stone tops), turned and scaled, and the height of their own surface.

A prop is built in its own frame: x across (its width), y away from the character (its near
face at y = 0), z up from the ground. Each part is either a box or a height field (a grid whose
top vertices sit on a function of x and y, with vertical sides down to the ground). The oracle
(`Prop.top`) reads the same numbers the mesh was built from: for a height field it interpolates
the very triangles written, so it is exact; nothing here asks the probe or the code under test.
"""
import math

from panda3d.core import Geom, GeomNode, GeomTriangles, GeomVertexData, GeomVertexFormat, GeomVertexWriter, Point3

from .obstacles import box_profile, prism

#: Grid spacing (metres) of height-field tops across and along the approach.
DX, DY = 0.05, 0.01


class Box:
    """A box part: x from -width/2 to width/2 (shifted by `x`), y from `y0` to `y0 + depth`, z from `z0` to `z0 + height`."""

    def __init__(self, width, depth, height, x=0.0, y0=0.0, z0=0.0):
        self.width, self.depth, self.height, self.x, self.y0, self.z0 = width, depth, height, x, y0, z0

    def build(self, parent, name):
        prism(parent, name, box_profile(self.depth, self.height), self.width,
              pos=(self.x, self.y0 + self.depth / 2, self.z0))

    def top(self, x, y):
        inside = abs(x - self.x) <= self.width / 2 and self.y0 <= y <= self.y0 + self.depth
        return self.z0 + self.height if inside else None


class HeightField:
    """A solid whose top is z = f(x, y) over x in [-width/2, width/2], y in [0, depth], with vertical sides."""

    def __init__(self, width, depth, f):
        self.nx, self.ny = max(1, round(width / DX)), max(1, round(depth / DY))
        self.width, self.depth = width, depth
        self.dx, self.dy = width / self.nx, depth / self.ny
        self.z = [[f(self._x(i), self._y(j)) for i in range(self.nx + 1)] for j in range(self.ny + 1)]

    def _x(self, i):
        return -self.width / 2 + i * self.dx

    def _y(self, j):
        return j * self.dy

    def build(self, parent, name):
        data = GeomVertexData(name, GeomVertexFormat.getV3(), Geom.UH_static)
        vertex = GeomVertexWriter(data, "vertex")
        tris = GeomTriangles(Geom.UH_static)
        row = self.nx + 1
        for j in range(self.ny + 1):
            for i in range(row):
                vertex.addData3(self._x(i), self._y(j), self.z[j][i])
        for j in range(self.ny):   # the top: each cell split along its (i, j)-(i+1, j+1) diagonal
            for i in range(self.nx):
                a, b, c, d = j * row + i, j * row + i + 1, (j + 1) * row + i + 1, (j + 1) * row + i
                tris.addVertices(a, b, c)
                tris.addVertices(a, c, d)
        ring = ([(i, 0) for i in range(self.nx)] + [(self.nx, j) for j in range(self.ny)]
                + [(i, self.ny) for i in range(self.nx, 0, -1)] + [(0, j) for j in range(self.ny, 0, -1)])
        base = vertex.getWriteRow()
        for i, j in ring:   # the sides, down to the ground
            vertex.addData3(self._x(i), self._y(j), 0.0)
        for k, (i, j) in enumerate(ring):
            i2, j2 = ring[(k + 1) % len(ring)]
            top1, top2 = j * row + i, j2 * row + i2
            low1, low2 = base + k, base + (k + 1) % len(ring)
            tris.addVertices(top1, low1, low2)
            tris.addVertices(top1, low2, top2)
        geom = Geom(data)
        geom.addPrimitive(tris)
        node = GeomNode(name)
        node.addGeom(geom)
        parent.attachNewNode(node)

    def top(self, x, y):
        u, v = (x + self.width / 2) / self.dx, y / self.dy
        if not (0.0 <= u <= self.nx and 0.0 <= v <= self.ny):
            return None
        i, j = min(int(u), self.nx - 1), min(int(v), self.ny - 1)
        u, v = u - i, v - j
        z00, z10, z11, z01 = self.z[j][i], self.z[j][i + 1], self.z[j + 1][i + 1], self.z[j + 1][i]
        if u >= v:   # triangle (00, 10, 11)
            return z00 + u * (z10 - z00) + v * (z11 - z10)
        return z00 + v * (z01 - z00) + u * (z11 - z01)   # triangle (00, 11, 01)


class Prop:
    """A named prop of `parts`, turned by `heading` and scaled by `scale` (x, y, z) when placed."""

    def __init__(self, name, parts, heading=0.0, scale=(1.0, 1.0, 1.0)):
        self.name, self.parts, self.heading, self.scale = name, parts, heading, scale

    def place(self, parent, distance, heading):
        """Build it under `parent` with its near face `distance` ahead of a character at the
        origin facing `heading` (the prop's own heading turns it further about its face's centre)."""
        path = parent.attachNewNode(self.name)
        forward = Point3(-math.sin(math.radians(heading)), math.cos(math.radians(heading)), 0)
        path.setPos(forward * distance)
        path.setH(heading + self.heading)
        path.setScale(*self.scale)
        for k, part in enumerate(self.parts):
            part.build(path, f"{self.name}-{k}")
        return path

    def top(self, x, y):
        """The prop's height (its own frame) over (x, y), or None off its footprint."""
        tops = [z for z in (part.top(x, y) for part in self.parts) if z is not None]
        return max(tops) if tops else None

    def size(self):
        """(height, depth) in world metres, from the parts' own numbers and the scale: the highest
        top over the footprint's centre line and the footprint's depth along it."""
        ys = [k * DY for k in range(int(3.0 / DY))]
        tops = [(y, self.top(0.0, y)) for y in ys]
        tops = [(y, z) for y, z in tops if z is not None]
        return max(z for _, z in tops) * self.scale[2], (tops[-1][0] - tops[0][0]) * self.scale[1]


def _log(x, y, radius=0.5):
    return radius + math.sqrt(max(0.0, radius * radius - (y - radius) ** 2))


def _grooved(x, y, height=0.7, plank=0.15, groove=0.02, deep=0.02):
    return height - deep if (y % plank) > plank - groove else height


def _stone(x, y):
    return 1.0 + 0.015 * math.sin(9.0 * x + 1.0) + 0.012 * math.sin(13.0 * y) - 0.02 * math.exp(
        -((x - 0.22) ** 2 + (y - 0.08) ** 2) / 0.06 ** 2)


def props():
    """Every generated prop, each with a heading and scale of its own."""
    return [
        Prop("crate1.0", [Box(1.2, 0.6, 1.0)]),
        Prop("crate1.4", [Box(1.2, 0.6, 1.4)], heading=0.0),
        Prop("log", [HeightField(1.6, 1.0, _log)], heading=0.0),
        Prop("sloped-lid", [HeightField(1.2, 0.6, lambda x, y: 1.0 + math.tan(math.radians(8)) * x
                                        + math.tan(math.radians(5)) * (y - 0.3))]),
        Prop("stepped", [HeightField(1.2, 0.6, lambda x, y: 1.1 if x > 0.05 else 0.95)]),
        Prop("plank-table", [HeightField(1.6, 0.9, _grooved)]),
        Prop("stone-top", [HeightField(1.4, 0.6, _stone)], scale=(1.1, 1.0, 1.05)),
        Prop("lid-crate1.8", [Box(1.2, 0.8, 1.75, y0=0.15), Box(1.5, 1.1, 0.05, z0=1.75)]),
        Prop("lid-crate2.0", [Box(1.2, 0.8, 1.95, y0=0.15), Box(1.5, 1.1, 0.05, z0=1.95)]),
        Prop("stack", [Box(1.4, 0.8, 1.0), Box(0.6, 0.6, 0.3, x=0.2, z0=1.0)]),
        Prop("narrow", [Box(0.3, 0.6, 1.0)]),
        Prop("scaled-crate", [Box(1.0, 0.5, 1.0)], scale=(1.3, 1.2, 0.9)),
    ]


class PropLevel:
    """A ground slab and `prop` with its near face `distance` ahead of a character at the origin
    facing `heading`; `surface(x, y)` is the height (world) of what is under a world point."""

    def __init__(self, render, prop, distance, heading):
        self.root = render.attachNewNode("level")
        prism(self.root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
        self.prop, self.distance, self.heading = prop, distance, heading
        self.path = prop.place(self.root, distance, heading)
        self.render = render

    def surface(self, x, y):
        local = self.path.getRelativePoint(self.render, Point3(x, y, 0))
        z = self.prop.top(local.x, local.y)
        return 0.0 if z is None else z * self.prop.scale[2]

    def on_prop(self, x, y):
        local = self.path.getRelativePoint(self.render, Point3(x, y, 0))
        return self.prop.top(local.x, local.y) is not None
