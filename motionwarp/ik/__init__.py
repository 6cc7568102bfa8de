"""Contact IK: hands and feet on what they touch, after the warper (docs/design.md 9).

May import: base, animation, warp.
"""
