"""The demo names what the probe hit by the scene obstacle it belongs to (issue 28: by a lookup of the
node's ancestors, not a scan of every obstacle, which cost 0.4 ms a frame with 5,000 boxes)."""
import pytest

from demo.app.app import Demo
from demo.level.scene import Scene

from .conftest import SAMPLES


@pytest.fixture
def course(base, warp_asset_dir):
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), asset_dir=warp_asset_dir)
    yield demo
    demo.destroy()


def test_a_probed_node_is_named_by_the_obstacle_it_belongs_to(course):
    names = [obstacle.name for obstacle in course.scene.obstacles]
    for node, name in zip(course.obstacles, names):
        assert course.obstacle_name(node) == name
        for geom in node.findAllMatches("**/+GeomNode"):   # a model's meshes sit some nodes down
            assert course.obstacle_name(geom) == name
    assert any(node.findAllMatches("**/+GeomNode").getNumPaths() and node.find("**/+GeomNode") != node
               for node in course.obstacles)   # the course has such models (the log, the wedge crate)


def test_a_node_outside_every_obstacle_is_named_by_itself(course, base):
    ground = course.level.find("ground")
    assert course.obstacle_name(ground) == "ground"
    loose = base.render.attachNewNode("loose")
    assert course.obstacle_name(loose.attachNewNode("stone")) == "stone"
