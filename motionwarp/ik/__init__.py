"""Contact IK: hands and feet on what they touch, after the warper (docs/design.md 9).

`contact_ik.ContactIK` composes the parts: `goals` (where each joint must be this frame),
`scene_view` (what the goals read from the scene), `limbs` (bending the frame's limbs, given and
returned as data: `twobone`, the limb solver, and `turn_limit`, the turn-rate limit), `compiled`
(the same bends in one numba call, when numba imports) and `pose_writer` (Panda3D's joints, read
and written).

May import: base, animation, warp.
"""
