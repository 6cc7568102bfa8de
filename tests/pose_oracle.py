"""The pose invariant's oracle (docs/design.md 3), computed from an untouched Actor only.

The untouched Actor is a separate conversion of the file (its own bundles, never stripped),
posed at the driven clip's frame within its cycle. Its root joint's model-space frame at the
first and last frame of a cycle gives the cycle's motion C; after k cycles the driven joints
must sit at C^k applied to the untouched ones. Nothing here reads motionwarp's tracks.
"""
import contextlib
import hashlib
import math
import pathlib

import numpy as np
from direct.actor.Actor import Actor
from panda3d.core import NodePath

from motionwarp import RootMotionDriver, load_actor
from motionwarp.animation._gltf_fix import convert
from motionwarp.base.config import gltf_settings_from_prc

from .conftest import ROOT, run_for, step
from .glb import read_glb

#: Late in the frame, after the root-motion task (MotionWarpSettings.task_sort), like drawing.
MEASURE_SORT = 49

#: The Knight beside the project (../shared/rigs), or beside the folder holding a git worktree of it.
KNIGHT_CANDIDATES = [ROOT.parent / "shared" / "rigs" / "Knight.glb", ROOT.parents[1] / "shared" / "rigs" / "Knight.glb"]
KNIGHT = next((p for p in KNIGHT_CANDIDATES if p.exists()), None)


#: Untouched conversions by file content: an Actor copies the model and only poses it, so one per
#: file will do (copies of one file included).
_untouched = {}


def untouched_actor(path):
    """An Actor of its own conversion of `path`: bundles no driver ever strips (converted once per
    file and test run; the Knight's 76 clips take seconds)."""
    key = hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
    if key not in _untouched:
        _untouched[key] = NodePath(convert(str(path), gltf_settings_from_prc()))
    return Actor(_untouched[key])


def planar_frame(nodepath, other, mode):
    """4x4 column-vector planar frame of a joint in `other`'s space: its position, and its heading
    measured as where it turns the model's +X (zeroed in projected mode)."""
    pos = np.array(nodepath.getPos(other))
    heading = 0.0
    if mode == "bone":
        turned = nodepath.getQuat(other).xform((1, 0, 0))
        heading = math.atan2(turned[1], turned[0])
    else:
        pos[2] = 0.0
    c, s = math.cos(heading), math.sin(heading)
    return np.array([[c, -s, 0, pos[0]], [s, c, 0, pos[1]], [0, 0, 1, pos[2]], [0, 0, 0, 1.0]])


def model_height(actor):
    low, high = actor.getTightBounds()
    return high[2] - low[2]


@contextlib.contextmanager
def actor_pair(base, path, joint, mode):
    """(untouched Actor, driven Actor, its RootMotionDriver, and both Actors' exposed joints, same order)."""
    reference = untouched_actor(path)
    reference.reparentTo(base.render)
    driven = load_actor(path)
    driven.reparentTo(base.render)
    driver = RootMotionDriver(driven, joint, mode, taskmgr=base.taskMgr)
    try:
        names = [j.getName() for j in reference.getJoints()]
        yield (reference, driven, driver, [reference.exposeJoint(None, "modelRoot", n) for n in names],
               [driven.exposeJoint(None, "modelRoot", n) for n in names])
    finally:
        driver.destroy()
        for actor in (driven, reference):
            actor.cleanup()
            actor.removeNode()


def positions(joints, space):
    """(n, 3) array of the joints' positions in `space`."""
    return np.array([tuple(joint.getPos(space)) for joint in joints])


def invariant_errors(base, path, clip, joint, mode, dt, seconds, loop=True):
    """Per frame, the largest distance between a driven joint and where the untouched Actor
    (plus the cycles travelled) puts it; also returns the model's height."""
    with actor_pair(base, path, joint, mode) as (reference, driven, driver, ref_joints, drv_joints):
        ref_root = reference.exposeJoint(None, "modelRoot", joint)
        frames = reference.getAnimControl(clip).getNumFrames()
        reference.pose(clip, 0)
        reference.update(force=True)
        height = model_height(reference)
        start = planar_frame(ref_root, reference, mode)
        cycle = frames - 1  # a closed loop's last frame is its first pose one cycle on
        reference.pose(clip, cycle)
        reference.update(force=True)
        cycle_motion = planar_frame(ref_root, reference, mode) @ np.linalg.inv(start)
        (driver.loop if loop else driver.play)(clip)
        control = driven.getAnimControl(clip)
        errors, seen = [], {"cycles": 0, "frame": 0.0}

        def measure(task):
            """After the driver, at the clock time it saw (where the frame is drawn)."""
            frame = control.getFullFframe()
            if loop:  # Panda3D restarts the count at each wrap: count them (no frame lasts a cycle here)
                seen["cycles"] += frame < seen["frame"]
                seen["frame"] = frame
            else:  # a clip played once holds its last frame
                frame = min(frame, frames - 1)
            cycles = seen["cycles"]
            reference.pose(clip, frame)
            reference.update(force=True)
            driven.update(force=True)
            carried = np.linalg.matrix_power(cycle_motion, int(cycles))
            expected = positions(ref_joints, base.render) @ carried[:3, :3].T + carried[:3, 3]
            errors.append(float(np.linalg.norm(positions(drv_joints, base.render) - expected, axis=1).max()))
            return task.cont

        base.taskMgr.add(measure, "pose-invariant-measure", sort=MEASURE_SORT)
        try:
            run_for(base, seconds, dt)
        finally:
            base.taskMgr.remove("pose-invariant-measure")
        return np.array(errors), height


def height_errors(base, path, joint, mode, clips, holds, dt):
    """Switch a driven Actor between looping `clips` in turn, holding each `holds[i]` seconds;
    per frame, the largest height difference between a driven joint and the same joint of
    the untouched Actor posed at the playing clip's frame (heights never travel for
    grounded clips, whatever the switches)."""
    with actor_pair(base, path, joint, mode) as (reference, driven, driver, ref_joints, drv_joints):
        playing, errors = {}, []

        def measure(task):
            frame = driven.getAnimControl(playing["clip"]).getFullFframe()
            reference.pose(playing["clip"], frame)
            reference.update(force=True)
            driven.update(force=True)
            errors.append(max(abs(d.getZ(base.render) - r.getZ(base.render)) for r, d in zip(ref_joints, drv_joints)))
            return task.cont

        base.taskMgr.add(measure, "pose-height-measure", sort=MEASURE_SORT)
        try:
            for i, hold in enumerate(holds):
                playing["clip"] = clips[i % len(clips)]
                driver.loop(playing["clip"])
                run_for(base, hold, dt)
        finally:
            base.taskMgr.remove("pose-height-measure")
        return np.array(errors), model_height(reference)


def authored_seconds(path, clip):
    """A clip's length straight from the GLB's JSON: the largest `max` of its samplers' time accessors."""
    doc = read_glb(path)[0]
    anim = next(a for a in doc["animations"] if a.get("name") == clip)
    return max(doc["accessors"][s["input"]]["max"][0] for s in anim["samplers"])


def loop_period(base, path, clip, joint, dt, seconds):
    """Seconds between the wraps of `clip` looped by a RootMotionDriver, averaged over `seconds`."""
    actor = load_actor(path)
    actor.reparentTo(base.render)
    driver = RootMotionDriver(actor, joint, "bone", taskmgr=base.taskMgr)
    try:
        control = actor.getAnimControl(clip)
        driver.loop(clip)
        wraps, previous, elapsed = [], 0.0, 0.0
        while elapsed < seconds:
            step(base, dt)
            elapsed += dt
            frame = control.getFullFframe()
            if frame < previous:  # wrapped within this step: interpolate the moment it passed the seam
                wraps.append(elapsed - frame / control.getFrameRate())
            previous = frame
        return (wraps[-1] - wraps[0]) / (len(wraps) - 1)
    finally:
        driver.destroy()
        actor.cleanup()
        actor.removeNode()
