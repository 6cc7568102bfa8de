"""The demo names what the probe hit by the scene obstacle it belongs to (issue 28: by a lookup of the
node's ancestors, not a scan of every obstacle, which cost 0.4 ms a frame with 5,000 boxes)."""
from .test_demo_hud import demo  # noqa: F401 (a fixture: the demo on the sample course)


def test_a_probed_node_is_named_by_the_obstacle_it_belongs_to(demo):
    names = [obstacle.name for obstacle in demo.scene.obstacles]
    for node, name in zip(demo.obstacles, names):
        assert demo.obstacle_name(node) == name
        for geom in node.findAllMatches("**/+GeomNode"):   # a model's meshes sit some nodes down
            assert demo.obstacle_name(geom) == name
    assert any(node.findAllMatches("**/+GeomNode").getNumPaths() and node.find("**/+GeomNode") != node
               for node in demo.obstacles)   # the course has such models (the log, the wedge crate)


def test_a_node_outside_every_obstacle_is_named_by_itself(demo, base):
    ground = demo.level.find("ground")
    assert demo.obstacle_name(ground) == "ground"
    loose = base.render.attachNewNode("loose")
    assert demo.obstacle_name(loose.attachNewNode("stone")) == "stone"
