"""The motionwarp demo (main.py): a walkable course of obstacles to vault and mantle."""
