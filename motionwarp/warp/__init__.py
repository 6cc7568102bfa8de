"""The warp itself: warp asset data and its binding to a model, targets, the warp math,
placement, refusal, and the MotionWarper that plays it all in a late task (docs/design.md 4, 5).

May import: base, animation.
"""
