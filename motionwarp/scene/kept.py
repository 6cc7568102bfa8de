"""What providers keep between queries, as named records apart from the geometry that found it (design 7):
a provider's last answer, the measurements kept along a character's line, the judgement of one, and
the bounded cache they are kept in."""
import dataclasses
import operator

from ..base.records import frozen_record

#: A query this close to one measured before (metres, degrees) counts as asked from the same place.
SAME_POS, SAME_H = 1e-4, 1e-3
#: An offset within this of a key's (metres; a key's offset lies below `_ROUNDS_EXACTLY_BELOW` m) rounds to
#: it: `round(x, 3)` gives the float nearest the multiple of 0.001 nearest x, and the key's lies within half
#: an ulp (under 1e-10 m there) of its multiple, so x is within 0.00049 + 1e-10 < 0.0005 m of that one.
_WELL_INSIDE, _ROUNDS_EXACTLY_BELOW = 0.00049, 1e6


@frozen_record
class KeptAnswer:
    """The answer a provider gave on a static probe, and what it was asked: returned again while a
    question `matches` it (the character within SAME_POS m and SAME_H degrees, all else the same).
    `objects` (the assets, the settings) compare by identity, `values` (the edit count, base/edits.py,
    and what no edit counts, read every query) by equality."""

    version: int
    x: float
    y: float
    z: float
    h: float
    scale: float
    objects: tuple
    values: tuple
    answer: object

    def matches(self, version, pos, h, scale, objects, values):
        """Whether a question is close enough to this one to get the same answer."""
        return (version == self.version and abs(pos[0] - self.x) <= SAME_POS and abs(pos[1] - self.y) <= SAME_POS
                and abs(pos[2] - self.z) <= SAME_POS and abs(h - self.h) <= SAME_H and scale == self.scale
                and values == self.values and same_objects(objects, self.objects))


def same_objects(these, those):
    """Whether two sequences hold the very same objects (assets compare by identity: an edit replaces one)."""
    return len(these) == len(those) and all(map(operator.is_, these, those))


@frozen_record(eq=False)
class Stamp:
    """What a kept value was made from: `objects` compared by identity (assets, their tracks, settings),
    `values` by equality (the edit count of base/edits.py: any field of theirs set since changes it)."""

    objects: tuple
    values: tuple

    def same(self, other):
        """Whether `other` was made from the same objects and values (a Stamp kept and asked again is itself)."""
        return other is self or (other is not None and same_objects(self.objects, other.objects)
                                 and self.values == other.values)


@dataclasses.dataclass(frozen=True)
class LineKey:
    """How kept measurements are filed: the settings but the reach, the heading to 0.01 degree and the
    line's offset from the origin to a millimetre, so a lookup reads only the few lines that may hold."""

    settings: tuple
    h: float
    offset: float

    @staticmethod
    def placed(pos, h, forward):
        """(h, offset) of a character at `pos` facing `forward` (heading `h`), rounded as a key files them."""
        return round(h, 2), round(pos.y * forward.x - pos.x * forward.y, 3)


@dataclasses.dataclass(frozen=True)
class KeptLine:
    """A measurement kept where it was made: the character's feet (x, y, z), heading `h` and facing
    (fx, fy), the top search's bound `max_height`, and `held` (measure._Held: how far along the line,
    and for which reaches and bounds, every ray and sweep meets what they met)."""

    key: LineKey
    x: float
    y: float
    z: float
    h: float
    fx: float
    fy: float
    max_height: float
    held: object
    found: object

    def along(self, pos, h, reach, max_height):
        """How far ahead along this line a character at `pos` facing `h` stands, when the measurement
        holds for it with `reach` and `max_height`; else None."""
        held = self.held
        if pos.z != self.z or abs(h - self.h) > SAME_H or not held.holds(reach, max_height, self.max_height, pos.z):
            return None
        dx, dy = pos.x - self.x, pos.y - self.y
        ahead = dx * self.fx + dy * self.fy
        if abs(dx * self.fy - dy * self.fx) <= SAME_POS and -SAME_POS <= ahead <= max(held.travel, SAME_POS):
            return ahead
        return None

    def surely_filed(self, pos, h):
        """Whether `LineKey.placed` files a character at `pos` facing `h` under this line's key, known without
        rounding: `h` is the line's own heading (its facing the line's, its rounded heading the key's) and the
        line's offset of `pos` lies well inside the key's millimetre. False: only the rounding can tell."""
        offset = self.key.offset
        return (h == self.h and abs(offset) < _ROUNDS_EXACTLY_BELOW
                and abs(pos.y * self.fx - pos.x * self.fy - offset) <= _WELL_INSIDE)


class KeptCache:
    """Entries by key, at most `per_key` under each (the oldest dropped first); past `most` keys all are
    forgotten: a bound on what a long game keeps (old assets replaced by edits, lines walked once)."""

    def __init__(self, most, per_key=1):
        self.most, self.per_key = most, per_key
        self._entries = {}

    def get(self, key):
        """The entries kept under `key`, oldest first (empty when none)."""
        return self._entries.get(key, ())

    def keep(self, key, entry):
        entries = self._entries.get(key)
        if entries is None:
            if len(self._entries) >= self.most:
                self._entries.clear()
            entries = self._entries[key] = []
        elif len(entries) >= self.per_key:
            del entries[0]
        entries.append(entry)

    def __len__(self):
        return len(self._entries)

    def values(self):
        """Each key's entries."""
        return self._entries.values()


@dataclasses.dataclass(frozen=True)
class Stamped:
    """A value kept in a KeptCache with the Stamp of what it was made from."""

    stamp: Stamp
    value: object


def kept_value(cache, key, stamp):
    """The value kept under `key` for the same `stamp`, else None."""
    return next((entry.value for entry in cache.get(key) if entry.stamp.same(stamp)), None)


class Judgement:
    """Each kind's answer to one measurement before the warper's refusal, judged in order as a verdict asks
    for it (`kind`): a kind only once every kind before it was refused or found no targets, so a query
    pays for the kinds up to the first the warper plays (a mantle's capsule tests against a 200,000-triangle
    crate cost 1.9 ms a query that the vault before it did not need). Each kind is kept as (its answer,
    the warper's Check of an Interaction's targets prepared once or None for a refusal, the numbers the
    answer brings to the kinds' joined refusal); `refusal` is that joined refusal once made, when no kind
    found targets (nothing left for the warper to refuse: the same every frame but its distance).
    `judge(index)` makes kind `index`'s entry; `count` is how many kinds there are."""

    __slots__ = ("count", "_judge", "_kinds", "refusal")

    def __init__(self, count, judge):
        self.count, self._judge, self._kinds, self.refusal = count, judge, [], None

    def kind(self, index):
        """Kind `index`'s (answer, Check or None, numbers), judged now if it was not yet."""
        kinds = self._kinds
        while len(kinds) <= index:
            kinds.append(self._judge(len(kinds)))
        return kinds[index]


@dataclasses.dataclass(frozen=True)
class JudgedLine:
    """A kept measurement's line and its Judgement (judged once, with the assets and settings of `stamp`,
    at probe version `version`): a character walking on along the line is answered from it without
    asking the probe."""

    version: int
    line: KeptLine
    stamp: Stamp
    judgement: Judgement
