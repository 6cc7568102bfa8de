"""One question for every provider: what can the character do now? (docs/design.md 7)

    chooser = InteractionChooser([TraversalProvider(probe, assets), JumpProvider(probe, assets),
                                  MarkerProvider(probe, render, assets)])
    found = chooser.find(actor)      # the best Interaction, or the Refusal to show
    if found:
        warper.play(found.asset, found.targets)

The best Interaction is the nearest (what the character meets first); providers that found
things within TIE metres of each other rank in the order given. Among the answers about one
obstacle (the same node, or a marker placed on it), the kind the level means comes first
(KIND_ORDER: what a marker names on a prop before traversing the prop, a vault before a jump
onto), whatever each provider's reach: a kind refused only as too far (walking closer offers it)
is answered before a later kind's Interaction. With no Interaction, the nearest Refusal that is
too far (about its obstacle, the kind first in KIND_ORDER: "too far to pick up" the cup on a table
before "too far to mantle" the table), else the Refusal of the nearest thing refused, with every provider's causes about that
same thing (its own first); when none met anything, what each looked for.
"""
from panda3d.core import NodePath

from ..base.errors import UsageError
from .kept import Stamp, Stamped
from .markers import MARKER_KINDS
from .providers import ACTOR_REMOVED, Refusal, nothing_in_front

#: Answers this close (metres) count as equally near: the earlier provider in the list wins.
TIE = 0.05
NOTHING_AT_ALL = "nothing to do here"
#: The kinds, in the order offered for one obstacle: what a marker on it names, then traversing it
#: the way a player expects (over before onto). A game's own kinds come after, in provider order.
KIND_ORDER = MARKER_KINDS + ("vault", "mantle", "jump_over", "jump_onto", "jump_gap")


class InteractionChooser:
    """Asks each provider (anything with `find_at(pos, h)`) and offers the best answer."""

    def __init__(self, providers, space=None):
        self.providers = list(providers)
        if not self.providers or not all(callable(getattr(p, "find_at", None)) for p in self.providers):
            raise UsageError(f"InteractionChooser providers: expected providers with find_at(pos, h), got {providers!r}")
        self.space = space
        #: Every provider's answer to the last question, in provider order (for a debug view).
        self.answers = []

    def find(self, actor):
        """The best answer for `actor` as it stands now (its position, heading and scale); a removed
        actor is answered with a Refusal (as `MotionWarper.play` refuses it)."""
        if actor.isEmpty():
            self.answers = []
            return Refusal(ACTOR_REMOVED)
        space = self.space if self.space is not None else actor.getTop()
        return self.find_at(actor.getPos(space), actor.getH(space), actor.getSx(space))

    def find_at(self, pos, h, scale=1.0):
        """The best answer for a character whose feet are at `pos`, facing heading `h`; a scaled
        character's `scale` is passed on (a game's own provider need not take it at scale 1)."""
        self.answers = answers = [provider.find_at(pos, h) if scale == 1.0 else provider.find_at(pos, h, scale)
                                  for provider in self.providers]
        ranked = self._ranked
        if ranked is not None and ranked.stamp.same(Stamp(tuple(answers), ())):
            return ranked.value
        chosen = best(answers)
        self._ranked = Stamped(Stamp(tuple(answers), ()), chosen)
        return chosen

    #: The last ranking, Stamped by the answers it ranked: the providers' kept answers are the same objects
    #: while nothing changed (a character standing still), and are not ranked again.
    _ranked = None


def best(answers):
    """The nearest Interaction (earlier first within TIE), or, about its obstacle, the answer of the kind
    first in KIND_ORDER among Interactions and too-far Refusals; else the nearest Refusal that is too far
    (what comes next on the way; about its obstacle, the kind first in KIND_ORDER), else the nearest
    Refusal that names a distance, else the first."""
    found = [answer for answer in answers if answer]
    placed = [answer for answer in answers if answer.distance is not None]
    if found:
        chosen = _meant(_nearest(found), [answer for answer in answers if answer or answer.too_far], answers)
        return chosen if chosen else _joined(chosen, placed)
    if placed:
        coming = [answer for answer in placed if answer.too_far]
        if coming:   # about the obstacle coming next, the kind the level means (the marker on it first)
            return _joined(_meant(_nearest(coming), coming, answers), placed)
        return _joined(_nearest(placed), placed)
    return _nothing(answers) if answers else Refusal(NOTHING_AT_ALL)



def _meant(first, candidates, answers):
    """Among `first` and the `candidates` about its obstacle, the one of the kind first in KIND_ORDER
    (earlier in `answers` among equals)."""
    about = [answer for answer in candidates if answer is first or _same_obstacle(answer, first)]
    return min(about, key=lambda answer: (_rank(answer.kind), _index(answers, answer)))


def _rank(kind):
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def _index(answers, answer):
    return next(i for i, other in enumerate(answers) if other is answer)


def _obstacle_nodes(answer):
    """The scene nodes an answer is about: its node, and the prop a marker is placed on."""
    nodes = (answer.node, getattr(answer, "prop", None))
    return [node for node in nodes if node is not None and not (isinstance(node, NodePath) and node.isEmpty())]


def _same_obstacle(one, other):
    """Whether two answers are about one obstacle: the same node, or one node under the other (a marker's
    prop holding the mesh a traversal hit)."""
    return any(a == b or (isinstance(a, NodePath) and isinstance(b, NodePath) and (a.isAncestorOf(b) or b.isAncestorOf(a)))
               for a in _obstacle_nodes(one) for b in _obstacle_nodes(other))


def _nothing(refusals):
    """When no provider met anything: one "nothing to .. in front" naming everything they looked for
    ("nothing to vault, mantle, jump onto or interact with in front"), else the first refusal."""
    causes = [refusal.causes[0] if len(refusal.causes) == 1 else None for refusal in refusals]
    if len(refusals) < 2 or not all(cause is not None and cause.looked_for for cause in causes):
        return refusals[0]
    return Refusal(causes=(nothing_in_front([verb for cause in causes for verb in cause.looked_for]),))


def _joined(refusal, refusals):
    """`refusal`, with the causes of the others that refuse the same node within TIE of it after its own."""
    same = [other for other in refusals if other is not refusal and refusal.node is not None
            and other.node == refusal.node and abs(other.distance - refusal.distance) <= TIE]
    if not same:
        return refusal
    same.insert(0, refusal)
    numbers = {k: v for other in reversed(same) for k, v in other.numbers.items()}
    return Refusal(None, refusal.node, refusal.distance, refusal.kind, numbers, refusal.too_far,
                   causes=[cause for other in same for cause in other.causes], prop=refusal.prop)


def _nearest(answers):
    """The earliest (in provider order) of the answers about the nearest thing: those within TIE of the
    nearest, and every other answer about the same node (providers measure their distance to different
    points of one obstacle: a vault to its face, a jump onto it to the take-off before it)."""
    closest = min(answer.distance for answer in answers)
    near = [answer for answer in answers if answer.distance <= closest + TIE]
    nodes = [answer.node for answer in near if answer.node is not None]
    return next(answer for answer in answers
                if any(answer is n for n in near) or (answer.node is not None and answer.node in nodes))
