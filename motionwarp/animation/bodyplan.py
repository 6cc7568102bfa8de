"""Which joints are a character's feet, hands and pelvis, read from the skeleton's shape (docs/design.md 3.2).

Names vary without end (`foot.l`, `LeftFoot`, `leg_joint_L_5`, `bone7`), shapes do not: standing,
a biped's feet are the chain ends that reach the ground from legs rising to its knees, whatever
joint the legs hang from (a pelvis under a root bone, or the top joint itself); its head is the
highest chain end; its hands end the other chains branching off the spine. Every rule is a fraction
of the standing height, so a centimetre rig reads like a metre rig. Rig helpers (IK targets, poles,
controls, slots) are left out by name: they copy a foot's place without being a leg.
"""
import functools
import re

import numpy as np

#: A chain end this fraction of the height above the lowest joint, or less, reaches the ground.
GROUND = 0.15
#: A leg rises from its foot to a joint at least this fraction of the height up (a knee, a hip).
KNEE = 0.25
#: Chain ends that meet below this fraction of the height are one foot (toes and a heel).
ONE_FOOT = 0.25
#: A leg's foot joint (an ankle) is its highest joint below this fraction of the height.
ANKLE = 0.2
#: Words that mark a joint as a rig helper (IK targets, poles, controls), never a limb.
HELPER = re.compile(r"ik|pole|target|control|ctrl|roll|slot|weapon|prop", re.IGNORECASE)


class BodyPlan:
    """Legs, pelvis, head and arms of a joint tree ({name: parent}) standing as `rest` ({joint:
    model-space position}) is, `height` tall."""

    def __init__(self, parents, rest, height):
        self.parents, self.rest, self.height = parents, rest, height
        self.children = {name: [c for c, p in parents.items() if p == name and not HELPER.search(c)]
                         for name in parents}
        self.ground = min(float(p[2]) for p in rest.values()) if rest else 0.0

    def up(self, joint):
        """The joint's height above the lowest joint, as a fraction of the height."""
        return (float(self.rest[joint][2]) - self.ground) / self.height if self.height > 0 else 0.0

    def ancestors(self, joint):
        found, parent = [], self.parents[joint]
        while parent is not None:
            found.append(parent)
            parent = self.parents[parent]
        return found

    def common(self, joints):
        """The lowest joint above (or at) every joint of `joints`, None when they share no top."""
        paths = [[j] + self.ancestors(j) for j in joints]
        shared = set(paths[0]).intersection(*paths[1:])
        return next((j for j in paths[0] if j in shared), None)

    @functools.cached_property
    def ends(self):
        """Chain ends: joints with no joint below them but helpers, helpers themselves left out."""
        return [j for j in self.parents if not self.children[j] and not HELPER.search(j)]

    @functools.cached_property
    def legs(self):
        """Each leg's foot joint (its ankle), one per foot on the ground, in joint order."""
        grounded = [j for j in self.ends if self.up(j) <= GROUND and any(self.up(a) >= KNEE for a in self.ancestors(j))]
        feet = []
        for end in grounded:   # chain ends meeting low are one foot
            for foot in feet:
                meet = self.common(foot + [end])
                if meet is not None and self.up(meet) < ONE_FOOT:
                    foot.append(end)
                    break
            else:
                feet.append([end])
        return [self._ankle(foot) for foot in feet]

    def _ankle(self, ends):
        """The highest joint below ANKLE on the way up from where the foot's chain ends meet."""
        joint = ends[0] if len(ends) == 1 else self.common(ends)
        for above in self.ancestors(joint):
            if self.up(above) >= ANKLE:
                break
            joint = above
        return joint

    @functools.cached_property
    def pelvis(self):
        """Where the legs meet (None without two legs)."""
        return self.common(self.legs) if len(self.legs) >= 2 else None

    @functools.cached_property
    def toes(self):
        """Unit model (x, y) the feet point (ankles to the chain ends below them), None when they do
        not point (no toes, or less than 2% of the height)."""
        pointing = np.zeros(2)
        for ankle in self.legs:
            for end in self.ends:
                if ankle in self.ancestors(end):
                    pointing += np.asarray(self.rest[end][:2]) - np.asarray(self.rest[ankle][:2])
        length = float(np.hypot(*pointing))
        return (float(pointing[0] / length), float(pointing[1] / length)) if length > 0.02 * self.height else None

    @property
    def forward(self):
        """Model (x, y) the body faces: where its feet point; glTF's +Z forward (-Y here) when they do not say."""
        return self.toes or (0.0, -1.0)

    def side(self, joint):
        """"l" or "r": which side of the body the joint is on, facing `forward` (right = forward x up)."""
        fx, fy = self.forward
        x, y = np.asarray(self.rest[joint][:2]) - (np.asarray(self.rest[self.pelvis][:2]) if self.pelvis else 0.0)
        return "r" if x * fy - y * fx > 0 else "l"

    @functools.cached_property
    def head(self):
        """The highest chain end."""
        return max(self.ends, key=self.up, default=None)

    @functools.cached_property
    def hands(self):
        """Per side, the joint where an arm's chain ends meet (its hand; the arm's end when it has no
        fingers): the arms are the chains off the spine (pelvis to head) that are not legs."""
        if self.pelvis is None or self.head is None:
            return {}
        spine = set([self.head] + self.ancestors(self.head))
        legs = {j for ankle in self.legs for j in [ankle] + self.ancestors(ankle)} - spine
        arms = {}
        for end in self.ends:
            path = [end] + self.ancestors(end)
            if end == self.head or legs.intersection(path) or self.pelvis not in path:
                continue
            branch = next(j for j in path if self.parents[j] in spine)   # the arm's first joint off the spine
            arms.setdefault(branch, []).append(end)
        found = {}
        # the two arms reaching farthest from the spine, one each side
        reach = {branch: max(np.linalg.norm(self.rest[e][:2] - self.rest[self.parents[branch]][:2]) for e in ends)
                 for branch, ends in arms.items()}
        for branch in sorted(arms, key=reach.get, reverse=True):
            hand = arms[branch][0] if len(arms[branch]) == 1 else self.common(arms[branch])
            found.setdefault(self.side(hand), hand)
        return found
