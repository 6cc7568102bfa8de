"""An Actor's clips and joints looked up by name, with errors that list what it has."""
from ..base.errors import LoadError


def clip_control(actor, clip):
    """The AnimControl of `clip`, or a LoadError that lists the clips the actor has."""
    control = actor.getAnimControl(clip) if clip in actor.getAnimNames() else None
    if control is None:
        names = ", ".join(sorted(actor.getAnimNames())) or "none"
        raise LoadError(f"clip {clip!r} not found; the actor has: {names}")
    return control


def require_joint(actor, joint):
    """Check that the actor's skeleton has `joint`, or raise a LoadError listing its joints."""
    names = [j.getName() for j in actor.getJoints()]
    if joint not in names:
        raise LoadError(f"joint {joint!r} not found; the skeleton has: {', '.join(names)}")
