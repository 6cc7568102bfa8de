"""Contact IK: hands and feet on what they touch, after the warper (docs/design.md 9).

`contact_ik.ContactIK` composes the parts: `goals` (where each joint must be this frame),
`scene_view` (what the goals read from the scene), `twobone` (the limb solver), `turn_limit`
(the turn-rate limit while a contact blends), `limbs` (every limb of a frame bent at once, in
numpy; `quats`: rotations as quaternion rows) and `pose_writer` (Panda3D's joints, read and
written). `batch.IKBatch` runs many ContactIKs in one task, their limbs bent together.

May import: base, animation, warp.
"""
