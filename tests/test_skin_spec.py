"""Skinned meshes drawn as the glTF spec says under any armature transform (docs/design.md 3.1): the
vertices Panda3D animates, at rest and in a posed frame, against the spec's own formula computed
here from the file's bytes (joint matrices x inverse bind matrices x weights, the skinned mesh
node's own transform ignored), on a generated biped and on the KayKit Knight, each re-exported
with data in centimetres under an armature scaled 0.01, x0.01 under one scaled 100, turned Z-up,
both (Mixamo through Blender), and with mesh nodes moved (tests/scaled_rigs.py)."""
import numpy as np
import pytest
from panda3d.core import GeomVertexReader, Thread

from motionwarp import load_actor

from . import biped_samples as biped
from . import scaled_rigs
from .pose_oracle import KNIGHT

#: Where a vertex may be off the spec (metres): float32 through the joint chain.
VERTEX = 1e-5
SOURCES = {"biped": ("Walk", 7), "knight": ("Dodge_Forward", 6)}


@pytest.fixture(scope="module", params=sorted(SOURCES))
def source(request, tmp_path_factory):
    if request.param == "knight":
        if KNIGHT is None:
            pytest.skip("../shared/rigs/Knight.glb is not beside the project")
        return request.param, str(KNIGHT)
    return request.param, str(biped.write_biped(tmp_path_factory.mktemp("biped") / "biped.glb"))


def drawn_vertices(actor, mesh_name):
    """The animated vertices of the mesh node `mesh_name`, in the actor's space, as glTF axes (x, z, -y)."""
    found = []
    for geom_node in actor.find(f"**/{mesh_name}").findAllMatches("**/+GeomNode"):
        mat = geom_node.getMat(actor)
        for geom in geom_node.node().getGeoms():
            reader = GeomVertexReader(geom.getAnimatedVertexData(True, Thread.getCurrentThread()), "vertex")
            while not reader.isAtEnd():
                point = mat.xformPoint(reader.getData3())
                found.append((point.x, point.z, -point.y))
    return np.array(found)


@pytest.mark.parametrize("variant", sorted(scaled_rigs.VARIANTS))
def test_skinned_vertices_are_where_the_spec_puts_them(source, variant, tmp_path):
    name, path = source
    clip, frame = SOURCES[name]
    wrapped = scaled_rigs.write_variant(path, variant, tmp_path / f"{name}_{variant}.glb")
    glb = scaled_rigs.Glb.read(wrapped)
    skinned = [i for i, node in enumerate(glb.doc["nodes"]) if "skin" in node]
    actor = load_actor(wrapped)
    try:
        actor.update(force=True)
        rest = {i: drawn_vertices(actor, glb.doc["nodes"][i]["name"]) for i in skinned}
        actor.pose(clip, frame)
        actor.update(force=True)
        pose = scaled_rigs.clip_locals(glb, clip, frame / actor.getAnimControl(clip).getFrameRate())
        for index in skinned:
            posed = drawn_vertices(actor, glb.doc["nodes"][index]["name"])
            spec_rest = scaled_rigs.spec_vertices(glb, index)
            spec_posed = scaled_rigs.spec_vertices(glb, index, pose)
            assert np.abs(rest[index] - spec_rest).max() < VERTEX
            assert np.abs(posed - spec_posed).max() < VERTEX
            assert np.abs(spec_posed - spec_rest).max() > 0.01   # the pose moves the mesh
    finally:
        actor.cleanup()


def test_the_variants_keep_the_sources_world(source, tmp_path):
    """The oracle's own check: each variant puts every skinned vertex where the source has it."""
    name, path = source
    original = scaled_rigs.Glb.read(path)
    index = next(i for i, node in enumerate(original.doc["nodes"]) if "skin" in node)
    for variant in scaled_rigs.VARIANTS:
        glb = scaled_rigs.Glb.read(scaled_rigs.write_variant(path, variant, tmp_path / f"{variant}.glb"))
        assert np.abs(scaled_rigs.spec_vertices(glb, index) - scaled_rigs.spec_vertices(original, index)).max() < 1e-5
        armature = glb.doc["nodes"][scaled_rigs.armature_of(glb)]
        k, turn, _ = scaled_rigs.VARIANTS[variant]
        assert armature.get("scale", [1.0] * 3) == [1.0 / k] * 3
        assert (turn is None) == ("rotation" not in armature)
