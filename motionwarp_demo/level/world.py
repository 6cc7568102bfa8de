"""Scene geometry for the demo: a ground plane, lit boxes and the lights."""
import functools
import math

import numpy as np
from panda3d.core import (AmbientLight, CardMaker, CompassEffect, DirectionalLight, GeomNode, Geom, GeomTriangles,
                          GeomVertexData, GeomVertexFormat, Material, Texture, Vec3, Vec4)

#: The checker's dark squares (0-255; the light ones are white): the texture modulates GROUND_COLOR.
DARK = 160
GROUND_COLOR = (0.78, 0.78, 0.76, 1)
#: Metres of ground one repeat of the checker texture covers (its squares are 1 m), and the ground's largest tile.
TEXTURE_M, TILE_M = 8.0, 5.0
#: Tiles along a side of the ground at most (32 x 32 quads from a 160 m ground up: about 0.15 s to build).
MAX_TILES = 32
SUN_DIRECTION = Vec3(-0.4, 0.8, -1.0)
#: Light colours per pipeline: simplepbr's are linear radiance (its diffuse is albedo / pi).
FIXED_LIGHT = {"ambient": (0.45, 0.45, 0.5), "sun": (0.8, 0.78, 0.7)}
PBR_LIGHT = {"ambient": (0.35, 0.37, 0.42), "sun": (3.2, 3.1, 2.8)}
#: The sun's shadow map: its size in texels and the square it covers around the character (metres).
SHADOW_MAP_PX = 2048
SHADOW_AREA_M = 24.0


def checker_texture(size=256, squares=8):
    """A light checker pattern so the ground shows motion; it modulates the ground's material.

    Mipmapped, trilinear and anisotropic: far squares blend to grey instead of shimmering (moire).
    """
    texture = Texture("checker")
    texture.setup2dTexture(size, size, Texture.T_unsigned_byte, Texture.F_rgb)
    cell = size // squares
    row = bytearray()
    for x in range(size):
        row += bytes((255,) * 3) if (x // cell) % 2 else bytes((DARK,) * 3)
    flipped = bytes(255 + DARK - v for v in row)
    texture.setRamImage(b"".join(bytes(row) if (y // cell) % 2 == 0 else flipped for y in range(size)))
    texture.setMinfilter(Texture.FT_linear_mipmap_linear)
    texture.setMagfilter(Texture.FT_linear)
    texture.setAnisotropicDegree(8)
    texture.generateRamMipmapImages()   # the software renderer uses only mipmaps made in RAM
    return texture


@functools.lru_cache(maxsize=None)
def surface(color):
    """A matte material of `color` (a tuple) as it should look on screen (demo.looks.Looks.adapt makes it
    linear for simplepbr; fixed-function lighting takes it as diffuse and ambient). One per colour: every
    box of a colour then shares one RenderState (5,000 boxes with a material each made ShowBase's state
    garbage collection take 0.4 s a frame)."""
    material = Material("surface")
    material.setBaseColor(Vec4(*color))
    material.setMetallic(0.0)
    material.setRoughness(0.8)
    return material


def add_ground(parent, size=60.0):
    """A square of `size` metres, textured every TEXTURE_M, in tiles of TILE_M (larger past
    MAX_TILES a side, so the cost stays bounded whatever the size).

    Tiles, not one quad: the software renderer picks one mipmap level per triangle.
    """
    ground = parent.attachNewNode("ground")
    tiles = min(max(1, math.ceil(size / TILE_M)), MAX_TILES)
    edges = [-size / 2 + size * i / tiles for i in range(tiles + 1)]
    maker = CardMaker("ground")
    for x0, x1 in zip(edges, edges[1:]):
        for z0, z1 in zip(edges, edges[1:]):
            maker.setFrame(x0, x1, z0, z1)
            maker.setUvRange((x0 / TEXTURE_M, z0 / TEXTURE_M), (x1 / TEXTURE_M, z1 / TEXTURE_M))
            ground.attachNewNode(maker.generate())
    ground.flattenStrong()
    ground.setP(-90)
    ground.setTexture(checker_texture())
    ground.setMaterial(surface(GROUND_COLOR))
    return ground


_FACES = [  # (normal, four corners as (x, y, z) signs, z from 0 to 1), counter-clockwise from outside
    ((0, -1, 0), [(-1, -1, 0), (1, -1, 0), (1, -1, 1), (-1, -1, 1)]),
    ((0, 1, 0), [(1, 1, 0), (-1, 1, 0), (-1, 1, 1), (1, 1, 1)]),
    ((-1, 0, 0), [(-1, 1, 0), (-1, -1, 0), (-1, -1, 1), (-1, 1, 1)]),
    ((1, 0, 0), [(1, -1, 0), (1, 1, 0), (1, 1, 1), (1, -1, 1)]),
    ((0, 0, 1), [(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]),
    ((0, 0, -1), [(-1, -1, 0), (-1, 1, 0), (1, 1, 0), (1, -1, 0)]),  # closed: a probe looking up meets it
]


#: Per vertex of a box: its corner's signs (x, y from -1 to 1, z from 0 to 1) and its face's normal.
_CORNERS = np.array([corner for _, corners in _FACES for corner in corners], dtype=np.float32)
_NORMALS = np.array([normal for normal, corners in _FACES for _ in corners], dtype=np.float32)


def _box_triangles():
    """The two triangles of each face, the same for every box (Panda3D copies a shared primitive before
    it writes one)."""
    triangles = GeomTriangles(Geom.UH_static)
    for index in range(len(_FACES)):
        triangles.addVertices(4 * index, 4 * index + 1, 4 * index + 2)
        triangles.addVertices(4 * index, 4 * index + 2, 4 * index + 3)
    return triangles


_BOX_TRIANGLES = _box_triangles()


def add_box(parent, name, pos, size, h=0.0, color=(0.62, 0.45, 0.28, 1)):
    """A box whose `pos` is the centre of its bottom face and `size` is (width, depth, height).

    Its vertices are written at once from numpy (one write, not 48 per box: a scene of 5,000 boxes
    built in a third of the time)."""
    data = GeomVertexData(name, GeomVertexFormat.getV3n3(), Geom.UH_static)
    data.uncleanSetNumRows(len(_CORNERS))
    half = np.array([size[0] / 2, size[1] / 2, size[2]], dtype=np.float32)
    memoryview(data.modifyArray(0)).cast("B")[:] = np.hstack([_CORNERS * half, _NORMALS]).tobytes()
    geom = Geom(data)
    geom.addPrimitive(_BOX_TRIANGLES)
    node = GeomNode(name)
    node.addGeom(geom)
    box = parent.attachNewNode(node)
    box.setPos(*pos)
    box.setH(h)
    box.setMaterial(surface(tuple(color)))
    box.setPythonTag("size", tuple(size))
    return box


class Lights:
    """The ambient light and the sun, strong enough for the `looks` pipeline (demo.looks.Looks).

    With shadows, the sun's shadow camera rides along with `follow` (the character), turned
    as the world is, so shadows cover SHADOW_AREA_M around it wherever it goes.
    """

    def __init__(self, render, looks):
        self.render = render
        bright = PBR_LIGHT if looks.pbr else FIXED_LIGHT
        self.ambient = render.attachNewNode(AmbientLight("ambient"))
        self.ambient.node().setColor(Vec4(*bright["ambient"], 1))
        self.sun = render.attachNewNode(DirectionalLight("sun"))
        self.sun.node().setColor(Vec4(*bright["sun"], 1))
        self.sun.lookAt(SUN_DIRECTION)
        if looks.shadows:
            self.sun.node().setShadowCaster(True, SHADOW_MAP_PX, SHADOW_MAP_PX)
            lens = self.sun.node().getLens()
            lens.setFilmSize(SHADOW_AREA_M, SHADOW_AREA_M)
            lens.setNearFar(-SHADOW_AREA_M, SHADOW_AREA_M)
        render.setLight(self.ambient)
        render.setLight(self.sun)

    def follow(self, nodepath):
        """Keep the sun's shadow camera on `nodepath`'s position, its direction fixed in the world."""
        hpr = self.sun.getHpr(self.render)
        self.sun.reparentTo(nodepath)
        self.sun.setEffect(CompassEffect.make(self.render, CompassEffect.P_rot))
        self.sun.setPosHpr(0, 0, 0, *hpr)   # the compass reads the rotation in the render's frame

    def remove(self):
        self.render.clearLight(self.ambient)
        self.render.clearLight(self.sun)
        self.ambient.removeNode()
        self.sun.removeNode()
