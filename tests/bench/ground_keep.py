"""What keeping the ground under the feet costs in accuracy (`motionwarp-ik-ground-keep`).

    python tests/bench/ground_keep.py

The mannequin walks (1.4 m/s, its origin put on the ground under it every frame) with its feet
kept on the ground across a floor, a 10 cm step, a 15 degree ramp up onto a plateau and its 54 cm
drop back to the floor, at 30, 60 and 144 fps, once casting a ray under each foot every frame
(`ground_keep=0`, the reference) and once per tolerance. Printed: the largest difference of a
foot joint's height (after the IK) from the reference's in the same frame, on plain ground (more
than 0.3 m from every edge and crease) and next to them, and the rays cast per frame.
"""
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.headless import windowless_base  # noqa: E402

TAN = math.tan(math.radians(15))
SPEED = 1.4                   # m/s along +y
RAMP = (3.0, 5.0)             # its foot and top (y)
PLATEAU_END = 6.5             # where the plateau drops back to the floor
EDGES = (1.0, 2.0, RAMP[0], RAMP[1], PLATEAU_END)   # y of every edge and crease
NEAR_EDGE = 0.3
KEEPS = (0.002, 0.005, 0.01, 0.02, 0.05)


def surface(y):
    """The terrain's height under y (the test's own numbers, not the probe's)."""
    if 1.0 <= y <= 2.0:
        return 0.1
    if RAMP[0] <= y <= RAMP[1]:
        return (y - RAMP[0]) * TAN
    if RAMP[1] <= y <= PLATEAU_END:
        return (RAMP[1] - RAMP[0]) * TAN
    return 0.0


def terrain(render):
    """The NodePath of the terrain (floor, step, ramp, plateau) under `render`."""
    from tests.obstacles import box_profile, prism
    root = render.attachNewNode("terrain")
    rise = (RAMP[1] - RAMP[0]) * TAN
    prism(root, "floor", box_profile(20.0, 0.1), 4.0, pos=(0, 3.0, -0.1))
    prism(root, "step", box_profile(1.0, 0.1), 4.0, pos=(0, 1.5, 0))
    prism(root, "ramp", [(RAMP[0], 0.0), (RAMP[1], 0.0), (RAMP[1], rise)], 4.0)
    prism(root, "plateau", box_profile(PLATEAU_END - RAMP[1], rise), 4.0, pos=(0, (RAMP[1] + PLATEAU_END) / 2, 0))
    return root


def walk(base, probe, keep, fps, start=-1.0, end=7.5):
    """[(y, height) of each foot joint after the IK, per frame] of the mannequin walking from `start`
    to `end` with its feet kept on the ground over `probe`, `keep` its ground_keep."""
    from panda3d.core import ClockObject, LMatrix4f, Point3

    from motionwarp import ContactIK, MotionWarper, load_actor
    from motionwarp.samples import folder
    actor = load_actor(folder() / "assets" / "mannequin.glb")
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    ik = ContactIK(actor, warper, probe, feet_on_ground=1, ground_keep=keep, taskmgr=base.taskMgr,
                   render=base.render)
    character = actor.find("**/+Character")
    joints = [character.node().findJoint(foot) for foot in ("foot_l", "foot_r")]
    where, frames, net = [start], [], LMatrix4f()

    def move(task):
        actor.setPos(0, where[0], surface(where[0]))
        where[0] += SPEED / fps
        return task.cont

    def measure(task):
        row = []
        for joint in joints:
            joint.getNetTransform(net)
            pos = base.render.getRelativePoint(character, Point3(net.getRow3(3)))
            row.append((pos.y, pos.z))
        frames.append(row)
        return task.cont

    actor.loop("walk")
    base.taskMgr.add(move, "ground-keep-move", sort=30)
    base.taskMgr.add(measure, "ground-keep-measure", sort=49)
    try:
        while where[0] < end:
            ClockObject.getGlobalClock().setFrameRate(fps)
            base.taskMgr.step()
    finally:
        base.taskMgr.remove("ground-keep-move")
        base.taskMgr.remove("ground-keep-measure")
        ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
    return frames


def differences(reference, kept):
    """(largest height difference on plain ground, next to an edge) (metres) between two walks."""
    plain, edge = 0.0, 0.0
    for ref_row, kept_row in zip(reference, kept):
        for (y, z), (_, kept_z) in zip(ref_row, kept_row):
            gap = abs(kept_z - z)
            if min(abs(y - e) for e in EDGES) > NEAR_EDGE:
                plain = max(plain, gap)
            else:
                edge = max(edge, gap)
    return plain, edge


def main():
    base, _ = windowless_base()
    from motionwarp import SceneProbe
    probe = SceneProbe.from_geometry(terrain(base.render))
    rays = [0]

    def counted(cast):
        def ray(*args):
            rays[0] += 1
            return cast(*args)
        return ray
    probe.drop_normal, probe.drop_face = counted(probe.drop_normal), counted(probe.drop_face)
    print("fps  keep (m)  plain ground (mm)  next to an edge (mm)  rays per frame")
    for fps in (30, 60, 144):
        rays[0] = 0
        reference = walk(base, probe, 0.0, fps)
        print(f"{fps:3d}  {0.0:8.3f}  {'(reference)':>17}  {'':>20}  {rays[0] / len(reference):14.2f}")
        for keep in KEEPS:
            rays[0] = 0
            kept = walk(base, probe, keep, fps)
            plain, edge = differences(reference, kept)
            print(f"{fps:3d}  {keep:8.3f}  {plain * 1000:17.3f}  {edge * 1000:20.1f}  {rays[0] / len(kept):14.2f}")


if __name__ == "__main__":
    main()
