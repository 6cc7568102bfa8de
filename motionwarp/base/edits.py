"""One count of edits to the data providers keep answers for (design 7, "Kept measurements"): every
attribute set on an `Edited` object after it was made, and every change of an `EditedList`, adds one
to `count`, so a kept answer compares this one integer instead of reading every value it was made from.

Read it as `edits.count` (a module attribute: the current value, never a copy taken at import)."""

#: Edits so far (a new object's own fields, set by its `__init__`, are not edits).
count = 0


def bump():
    """Count one edit."""
    global count
    count += 1


class Edited:
    """Mixin of the data classes a provider reads (phases, assets, traversals, contacts, settings): setting
    or deleting an attribute the object already has counts an edit. Fields named in `TUPLES` given any
    sequence but a string are stored as tuples, and fields in `LISTS` as an `EditedList` copy, so a list
    changed in place after it was given is either not the stored value or counted."""

    __slots__ = ()
    TUPLES: frozenset = frozenset()
    LISTS: frozenset = frozenset()

    def __setattr__(self, name, value):
        if name in self.__dict__:
            bump()
        if name in self.TUPLES:
            value = _as_tuple(value)
        elif name in self.LISTS and isinstance(value, list):
            value = EditedList(value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        bump()
        object.__delattr__(self, name)


def _as_tuple(value):
    """`value` as a tuple when it is a sequence (a list, a Vec3, an array) other than a string; else as given,
    for the checks to name."""
    if isinstance(value, (tuple, str, bytes)) or not hasattr(value, "__len__"):
        return value
    return tuple(value)


def _counted(name):
    """list's method `name`, counting an edit each call."""
    method = getattr(list, name)

    def counted(self, *args):
        bump()
        return method(self, *args)
    counted.__name__, counted.__doc__ = name, method.__doc__
    return counted


class EditedList(list):
    """A list whose every change in place (append, insert, item or slice set and delete, extend, pop,
    remove, sort, reverse, clear, += and *=) counts an edit: `asset.phases` and `asset.contacts`."""

    __slots__ = ()
    append, insert, extend, pop, remove = (_counted(name) for name in ("append", "insert", "extend", "pop", "remove"))
    __setitem__, __delitem__, __iadd__, __imul__ = (_counted(name) for name in ("__setitem__", "__delitem__",
                                                                               "__iadd__", "__imul__"))
    reverse, clear = _counted("reverse"), _counted("clear")

    def sort(self, *, key=None, reverse=False):
        bump()
        list.sort(self, key=key, reverse=reverse)
