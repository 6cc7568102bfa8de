"""Characters and their clips: loading glTF (with its fixes), an Actor's clips and joints,
root-motion tracks, planar motion, joint alignment, and the driver that moves an Actor by the
root motion of what it plays (docs/design.md 3); joint positions and planted limbs (3.2).

May import: base.
"""
