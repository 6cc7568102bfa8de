"""Every limb the contact IK bends this frame, of one character or a crowd, bent at once in numpy.

Per limb the Python left is reading its four joints' net matrices into a shared Panda3D array
(`PTA_LMatrix4f`, which numpy reads in place) and handing back its results; the solve
(ik.twobone), the turn limit (ik.turn_limit) and the moves between world and Character space
are array arithmetic over all limbs together. ContactIK bends its own limbs through a batch of
one character; IKBatch gathers every character of a ShowBase into one.
"""
import numpy as np
from panda3d.core import LMatrix4f, PTA_LMatrix4f

from .quats import quats_of, rows_of, turns
from .turn_limit import ANIM, HAS, LET_GO_DEG, OUT, PARENT, STATE, limit_joints
from .twobone import bend_direction, norm, reach_limit, slide_within_reach, solve


_IDENTITY = LMatrix4f.identMat()


class _Matrices:
    """A growing Panda3D array of matrices and numpy's view of it (float32, shared memory)."""

    def __init__(self, size=64):
        self.pta = PTA_LMatrix4f.emptyArray(size)
        self.view = np.asarray(memoryview(self.pta))
        self.count = 0

    def hold(self, size):
        """Room for `size` matrices, the first `count` kept."""
        if size > len(self.view):
            old = self.view[:self.count].copy()
            self.pta = PTA_LMatrix4f.emptyArray(2 * size)
            self.view = np.asarray(memoryview(self.pta))
            self.view[:self.count] = old

    def add(self, mat):
        """Copy `mat` (an LMatrix4f) in; returns its index."""
        if self.count == len(self.view):
            self.hold(self.count + 1)
        self.pta[self.count] = mat
        self.count += 1
        return self.count - 1


class LimbBatch:
    """The limbs to bend this frame: characters (`character`) and their limbs (`add`), then `bend()`."""

    def __init__(self):
        self._frames = _Matrices()   # per character: its Character's matrix to world, and back
        self._nets = _Matrices()     # per limb: its parent's, upper, mid and end joints' net matrices
        self._out = _Matrices()      # per limb: its upper, mid and end joints' new local matrices
        self._rises = []             # per character: how far (world, up) its pelvis moves
        self._limbs = []             # per limb: (character, correction x, y, z (world), weight, hangs, letting go)
        self._limits, self._bends, self._last = [], [], []

    def __len__(self):
        return len(self._limbs)

    def clear(self):
        self._frames.count = self._nets.count = 0
        self._rises, self._limbs, self._limits, self._bends, self._last = [], [], [], [], []

    def character(self, world_from_char, char_from_world, rise):
        """Add a character (`world_from_char`, `char_from_world`: its Character node's matrix to world
        and back; `rise`: how far its pelvis moves up, world metres, 0 for none); returns its number
        for `add`."""
        self._frames.add(world_from_char)
        self._frames.add(char_from_world)
        self._rises.append(rise)
        return len(self._rises) - 1

    def add(self, character, nets, correction, weight, hangs, letting_go, limits, bend, last):
        """Add a limb of `character`; returns its row in `bend()`'s result. `nets`: the net matrices
        (LMatrix4f, Character space, as animated; None for a limb hanging from the Character) of
        its parent joint, upper, mid and end joints; move its end `correction * weight` (world)
        from its animated place; `hangs`: does it hang from the pelvis (then the rise carries it)?
        `letting_go`: is it being let go within the turn limit? `limits`: TurnLimiter.limits;
        `bend`: last frame's bend direction (3 floats, zeros for none); `last`: its turn limit
        state row of last frame (None: not bent)."""
        for net in nets:
            self._nets.add(_IDENTITY if net is None else net)
        self._limbs.append((character, correction[0], correction[1], correction[2], weight, hangs, letting_go))
        self._limits.append(limits)
        self._bends.append(bend)
        self._last.append(_UNBENT if last is None else last)
        return len(self._limbs) - 1

    def bend(self):
        """Bent: every limb added, solved and limited at once (None when there is none)."""
        count = len(self._limbs)
        if not count:
            return None
        limbs = np.array(self._limbs)
        owner = limbs[:, 0].astype(np.intp)
        frames = self._frames.view[:self._frames.count, :3, :3].astype(np.float64).reshape(-1, 2, 3, 3)
        bent = bend_limbs(self._nets.view[:self._nets.count].astype(np.float64).reshape(-1, 4, 4, 4), frames[owner],
                          limbs[:, 1:4], limbs[:, 4], np.array(self._rises)[owner] * limbs[:, 5], limbs[:, 6] > 0,
                          np.array(self._limits), np.array(self._bends), np.array(self._last))
        self._out.hold(3 * count)
        self._out.view[:3 * count] = bent.locals.reshape(-1, 4, 4)
        bent.pta = self._out.pta
        return bent


_UNBENT = np.zeros(STATE)


class Bent:
    """What `LimbBatch.bend()` gives back, per limb row: its joints' new local matrices (`local(row,
    k)`, k 0 to 2: upper, mid, end), how far its end moved (`reached`, world, per unit of weight,
    the pelvis's carry taken out), how far its goal slid to stay within reach (`slid`, world, per
    unit of weight) and whether it did (`replant`), whether the turn limit still lets it go
    (`letting_go`), its turn limit state and bend direction for next frame (`states`, `bends`)."""

    def __init__(self, locals_, reached, slid, replant, letting_go, states, bends):
        self.locals, self.states, self.bends = locals_, states, bends
        # read row by row in Python: lists (a numpy scalar costs more to read than a float)
        self.reached, self.slid, self.replant = reached.tolist(), slid.tolist(), replant.tolist()
        self.letting_go = letting_go.tolist()
        self.pta = None

    def local(self, row, k):
        """The new local matrix of joint `k` of limb `row` (an LMatrix4f-like, float32)."""
        return self.pta[3 * row + k]


def bend_limbs(nets, frames, correction, weight, rise, letting_go, limits, bends, last):
    """Bend n limbs at once (numpy rows; see LimbBatch.add): `nets` (n, 4, 4, 4) parent, upper, mid,
    end net matrices; `frames` (n, 2, 3, 3) each one's Character rotation to world and back;
    `correction` (n, 3) world, `weight` (n); `rise` (n) how far (world, up) the pelvis above it
    moved (0 for none); `letting_go` (n) bool; `limits` (n, 4) TurnLimiter.limits; `bends` (n, 3);
    `last` (n, STATE). Each limb's end goes `correction * weight` from its animated place (plus what
    the pelvis carries of it while its weight is below 1), slid along the level plane into reach
    (a planted foot slides, never lifts), the two-bone solve bends it there, and the turn limit
    holds back each of its joints, from the upper one down."""
    world_from_char, char_from_world = frames[:, 0], frames[:, 1]
    up = char_from_world[:, 2, :]                   # the world's up in Character space
    moved = up * rise[:, None]
    carried = rise * (1.0 - weight)
    world_move = correction * weight[:, None]
    world_move[:, 2] += carried
    move = np.matmul(world_move[:, None, :], char_from_world)[:, 0]
    nets = nets.copy()
    nets[:, :, 3, :3] += moved[:, None, :]          # the limb's animated joints move with the pelvis
    parent, upper, mid, end = nets[:, 0], nets[:, 1], nets[:, 2], nets[:, 3]
    a, b, c = upper[:, 3, :3], mid[:, 3, :3], end[:, 3, :3]
    animated = c - moved
    bend = bend_direction(a, b, c, bends)
    goal = slide_within_reach(a, animated + move, reach_limit(norm(c - a), norm(b - a) + norm(c - b)),
                              up / norm(up)[:, None])
    new = solve(upper, mid, end, goal, bend)
    # local matrices: as the solve wants them (under the solved parents) and as animated
    locals_ = np.matmul(np.concatenate([new, nets[:, 1:]], axis=1),
                        affine_inverse(np.concatenate([nets[:, :1], new[:, :2], nets[:, :3]], axis=1)))
    quats = quats_of(np.concatenate([locals_[:, :, :3, :3], parent[:, None, :3, :3]], axis=1))
    wanted, anim_quat, parent_quat = quats[:, :3], quats[:, 3:6], quats[:, 6]
    has = last[:, HAS:HAS + 1] > 0
    last_out, last_anim = last[:, OUT].reshape(-1, 3, 4), last[:, ANIM].reshape(-1, 3, 4)
    outs, held, rooms = limit_joints(wanted, anim_quat, last_out, last_anim, has, limits[:, :3],
                                     net=(parent_quat, last[:, PARENT], limits[:, 3]))
    out = locals_[:, :3].copy()
    ends = new[:, 2]
    if held.any():   # joints under a held one: solved anew under the parent as held (then limited too)
        above = parent
        for k in range(3):
            chained = held[:, :k].any(axis=1)
            if chained.any():
                mine = np.matmul(new[chained, k], affine_inverse(above[chained]))
                mine_quat = quats_of(mine[:, :3, :3])[:, None]
                turned, again, room = limit_joints(mine_quat, anim_quat[chained, k:k + 1], last_out[chained, k:k + 1],
                                                   last_anim[chained, k:k + 1], has[chained], limits[chained, k:k + 1])
                out[chained, k], outs[chained, k] = mine, turned[:, 0]
                held[chained, k], rooms[chained, k] = again[:, 0], room[:, 0]
            turned = held[:, k]
            if turned.any():   # the animated local matrix, its rotation the limited one
                anim = locals_[turned, 3 + k]
                scale = np.sqrt(np.add.reduce(anim[:, :3, :3] ** 2, -1))
                out[turned, k, :3, :3] = rows_of(outs[turned, k]) * scale[:, :, None]
                out[turned, k, 3] = anim[:, 3]
            above = np.where(held[:, :k + 1].any(axis=1)[:, None, None], np.matmul(out[:, k], above), new[:, k])
        ends = above
    ik_turns = turns(outs, anim_quat)
    still = held.any(axis=1) | (letting_go & (ik_turns > LET_GO_DEG).any(axis=1)) \
        | ((weight < 1.0) & (ik_turns > rooms).any(axis=1))
    states = np.concatenate([np.ones((len(nets), 1)), outs.reshape(-1, 12), anim_quat.reshape(-1, 12), parent_quat], axis=1)
    reached = np.matmul((ends[:, 3, :3] - animated)[:, None, :], world_from_char)[:, 0]
    reached[:, 2] -= carried
    slid = np.matmul((goal - (animated + move))[:, None, :], world_from_char)[:, 0]
    per_weight = 1.0 / np.where(weight > 0.0, weight, 1.0)[:, None]
    return Bent(out, reached * per_weight, slid * per_weight,
                (weight > 0.0) & (np.add.reduce(slid * slid, -1) > 0.0), still, states, bend)


def affine_inverse(mats):
    """Inverses of joint matrices (..., 4, 4; row-vector): a turn and a scale along the joint's own
    axes (its rows orthogonal, as glTF joints' are: no shear), so the 3x3 part's inverse is its
    transpose with each column divided by that row's squared length."""
    rows = mats[..., :3, :3]
    out = np.zeros(mats.shape)
    out[..., :3, :3] = np.swapaxes(rows, -1, -2) / np.einsum("...ij,...ij->...i", rows, rows)[..., None, :]
    out[..., 3, :3] = -np.matmul(mats[..., 3:, :3], out[..., :3, :3])[..., 0, :]
    out[..., 3, 3] = 1.0
    return out
