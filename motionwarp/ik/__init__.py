"""Contact IK: hands and feet on what they touch, after the warper (docs/design.md 9).

`contact_ik.ContactIK` composes the parts: `goals` (where each joint must be this frame),
`scene_view` (what the goals read from the scene), `twobone` (the limb solver), `turn_limit`
(the turn-rate limit while a contact blends) and `pose_writer` (Panda3D's joints, read and written).

May import: base, animation, warp.
"""
