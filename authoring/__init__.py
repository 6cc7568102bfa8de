"""Tools that author the shipped data in assets/: the mannequin, its contacts, the warp assets
and the contact-sheet picture. Run them from the repository root with `python -m authoring.…`."""
