"""The course: scene files (docs/design.md 6) and the world geometry built from them.

May import: motionwarp.
"""
