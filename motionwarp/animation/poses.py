"""Where every joint of a character is at every frame of a clip, read from the animation tables.

Nothing is rendered: each joint's model-space matrix is its channel composed with its parent
joints' channels and the Character's transform (as `rootmotion.joint_model_matrices` does for
one joint, here for all of them at once). Positions are as authored, root motion included,
also for a bundle motionwarp has stripped (its track is put back).
"""
import numpy as np
from panda3d.core import AnimChannelMatrixXfmTable, CharacterJoint

from . import rootmotion


class ClipPoses:
    """`positions[joint]`: Nx3 model-space positions of each animated joint over the clip's N frames."""

    def __init__(self, bundle, base=None, clip=None):
        self.clip = clip or bundle.getName()
        self.fps = bundle.getBaseFrameRate()
        self.num_frames = n = bundle.getNumFrames()
        top = np.broadcast_to(np.eye(4) if base is None else np.asarray(base, dtype=np.float64), (n, 4, 4))
        self.positions = {}
        stack = [(bundle, top)]
        while stack:
            group, above = stack.pop()
            if isinstance(group, AnimChannelMatrixXfmTable):
                above = rootmotion.local_matrices(group, n) @ above
                self.positions[group.getName()] = above[:, 3, :3].copy()
            stack.extend((group.getChild(i), above) for i in range(group.getNumChildren()))
        if rootmotion.is_stripped(bundle):   # the track was taken off every joint: put it back
            track = rootmotion.track_for(bundle, None)
            for joint, path in self.positions.items():
                self.positions[joint] = _moved(path, track)

    @property
    def duration(self):
        """Seconds from the first frame to the last."""
        return (self.num_frames - 1) / self.fps

    def velocity(self, joint, ground_speed=0.0):
        """Nx3 velocity (model units per second) of `joint`, central differences; `ground_speed` (+Y)
        is added, as a clip authored in place moves when played at that speed."""
        path = self.positions[joint]
        if len(path) < 2:
            return np.zeros_like(path)
        velocity = np.gradient(path, axis=0) * self.fps
        velocity[:, 1] += ground_speed
        return velocity



def rest_positions(part_bundle, base=None):
    """{joint: model-space position} of a Character's joints in its rest (bind) pose."""
    top = np.eye(4) if base is None else np.asarray(base, dtype=np.float64)
    positions = {}
    stack = [(part_bundle, top)]
    while stack:
        group, above = stack.pop()
        if isinstance(group, CharacterJoint):
            mat = group.getDefaultValue()
            above = np.array([list(mat.getRow(r)) for r in range(4)]) @ above
            positions[group.getName()] = above[3, :3].copy()
        stack.extend((group.getChild(i), above) for i in range(group.getNumChildren()))
    return positions


def standing_height(rest):
    """The height of a skeleton standing in its rest pose: its lowest joint to its highest."""
    heights = [point[2] for point in rest.values()]
    return float(max(heights) - min(heights))


def _moved(path, track):
    """Positions of a stripped clip's joint moved back by the track's motion at each frame."""
    out = np.empty_like(path)
    for frame, point in enumerate(path):
        x, y, z, h = track.sample(frame)
        out[frame] = (np.append(point, 1.0) @ rootmotion.motion_matrix((x, y, z), h))[:3]
    return out
