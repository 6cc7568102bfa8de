"""The base every other layer stands on: errors, settings (the one reader of PRC), JSON fields
read with named errors, atomic file writes.

Imports no other motionwarp package.
"""
