"""The base every other layer stands on: errors, settings (the one reader of PRC), JSON fields
read with named errors, atomic file writes, frozen records quick to make.

Imports no other motionwarp package.
"""
