"""Tools that author the shipped samples (motionwarp/samples/: assets/ and scenes/): the mannequin, its contacts, the warp
assets, the contact-sheet picture and the mesh obstacles. Run them from the repository root with `python -m authoring.…`."""
