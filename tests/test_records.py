"""base/records.py: a frozen record made quickly is the frozen dataclass it stands for, field for field."""
import dataclasses
import inspect
from typing import Optional

import pytest

from motionwarp.base.records import frozen_record


class _Fields:
    reason: str
    value: Optional[float] = None
    unit: str = "m"
    looked_for: tuple = ()


Quick = frozen_record(type("Quick", (_Fields,), {"__annotations__": dict(_Fields.__annotations__)}))
Plain = dataclasses.dataclass(frozen=True)(type("Plain", (_Fields,), {"__annotations__": dict(_Fields.__annotations__)}))


@pytest.mark.parametrize("args, kwargs", [(("too high",), {}), (("too far", 2.5), {"unit": "°"}),
                                          ((), {"reason": "x", "looked_for": ("vault",)})])
def test_made_as_the_dataclass_makes_it(args, kwargs):
    quick, plain = Quick(*args, **kwargs), Plain(*args, **kwargs)
    assert vars(quick) == vars(plain)
    assert quick == Quick(*args, **kwargs) and hash(quick) == hash(Quick(*args, **kwargs))
    assert repr(quick).replace("Quick", "Plain") == repr(plain)
    assert dataclasses.replace(quick, unit="") == Quick(*args, **{**kwargs, "unit": ""})


def test_the_same_signature_and_still_frozen():
    assert str(inspect.signature(Quick)) == str(inspect.signature(Plain))
    with pytest.raises(TypeError):
        Quick()   # the field without a default is required
    with pytest.raises(dataclasses.FrozenInstanceError):
        Quick("x").reason = "y"


def test_eq_false_compares_by_identity():
    Loose = frozen_record(eq=False)(type("Loose", (_Fields,), {"__annotations__": dict(_Fields.__annotations__)}))
    assert Loose("x") != Loose("x")


def test_a_default_factory_or_post_init_is_refused():
    with pytest.raises(TypeError, match="only plain fields"):
        frozen_record(type("Bad", (), {"__annotations__": {"numbers": dict},
                                       "numbers": dataclasses.field(default_factory=dict)}))
    with pytest.raises(TypeError, match="only plain fields"):
        frozen_record(type("Bad", (), {"__annotations__": {"x": int}, "__post_init__": lambda self: None}))
    with pytest.raises(TypeError, match="only plain fields"):   # an InitVar the dataclass's __init__ takes
        frozen_record(type("Bad", (), {"__annotations__": {"x": int, "seed": dataclasses.InitVar[int]}}))
