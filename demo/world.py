"""Scene geometry for the demo: a ground plane, lit boxes and the lights."""
from panda3d.core import (AmbientLight, CardMaker, DirectionalLight, GeomNode, Geom, GeomTriangles,
                          GeomVertexData, GeomVertexFormat, GeomVertexWriter, Texture, Vec3, Vec4)


def checker_texture(size=64, squares=8):
    """A grey checker pattern so the ground shows motion."""
    texture = Texture("checker")
    texture.setup2dTexture(size, size, Texture.T_unsigned_byte, Texture.F_rgb)
    cell = size // squares
    pixels = bytearray()
    for y in range(size):
        for x in range(size):
            shade = 150 if ((x // cell) + (y // cell)) % 2 else 110
            pixels += bytes((shade, shade, shade))
    texture.setRamImage(bytes(pixels))
    texture.setMagfilter(Texture.FT_nearest)
    return texture


def add_ground(parent, size=60.0):
    maker = CardMaker("ground")
    maker.setFrame(-size / 2, size / 2, -size / 2, size / 2)
    maker.setUvRange((0, 0), (size / 2, size / 2))
    ground = parent.attachNewNode(maker.generate())
    ground.setP(-90)
    ground.setTexture(checker_texture())
    return ground


_FACES = [  # (normal, four corners as (x, y, z) signs, z from 0 to 1), counter-clockwise from outside
    ((0, -1, 0), [(-1, -1, 0), (1, -1, 0), (1, -1, 1), (-1, -1, 1)]),
    ((0, 1, 0), [(1, 1, 0), (-1, 1, 0), (-1, 1, 1), (1, 1, 1)]),
    ((-1, 0, 0), [(-1, 1, 0), (-1, -1, 0), (-1, -1, 1), (-1, 1, 1)]),
    ((1, 0, 0), [(1, -1, 0), (1, 1, 0), (1, 1, 1), (1, -1, 1)]),
    ((0, 0, 1), [(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]),
    ((0, 0, -1), [(-1, -1, 0), (-1, 1, 0), (1, 1, 0), (1, -1, 0)]),  # closed: a probe looking up meets it
]


def add_box(parent, name, pos, size, h=0.0, color=(0.62, 0.45, 0.28, 1)):
    """A box whose `pos` is the centre of its bottom face and `size` is (width, depth, height)."""
    data = GeomVertexData(name, GeomVertexFormat.getV3n3(), Geom.UH_static)
    vertices, normals = GeomVertexWriter(data, "vertex"), GeomVertexWriter(data, "normal")
    triangles = GeomTriangles(Geom.UH_static)
    half_w, half_d, height = size[0] / 2, size[1] / 2, size[2]
    for index, (normal, corners) in enumerate(_FACES):
        for sx, sy, sz in corners:
            vertices.addData3(sx * half_w, sy * half_d, sz * height)
            normals.addData3(*normal)
        triangles.addVertices(4 * index, 4 * index + 1, 4 * index + 2)
        triangles.addVertices(4 * index, 4 * index + 2, 4 * index + 3)
    geom = Geom(data)
    geom.addPrimitive(triangles)
    node = GeomNode(name)
    node.addGeom(geom)
    box = parent.attachNewNode(node)
    box.setPos(*pos)
    box.setH(h)
    box.setColor(Vec4(*color))
    box.setPythonTag("size", tuple(size))
    return box


def remove_lights(render):
    """Undo add_lights."""
    render.clearLight()
    render.clearShader()
    for light in render.findAllMatches("=demo-light"):
        light.removeNode()


def add_lights(render):
    ambient = render.attachNewNode(AmbientLight("ambient"))
    ambient.setTag("demo-light", "")
    ambient.node().setColor(Vec4(0.45, 0.45, 0.5, 1))
    sun = render.attachNewNode(DirectionalLight("sun"))
    sun.setTag("demo-light", "")
    sun.node().setColor(Vec4(0.8, 0.78, 0.7, 1))
    sun.lookAt(Vec3(-0.4, 0.8, -1.0))
    render.setLight(ambient)
    render.setLight(sun)
    render.setShaderAuto()
