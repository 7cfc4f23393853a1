"""Value <-> Python conversion, seen through the JSON helpers and Job.spec."""
import collections
import math

import pytest

import budcore
from budcore import ValidationError, parse_json, to_json


def test_scalars_round_trip_with_their_types():
    doc = {"n": None, "t": True, "f": False, "i": -7, "x": 2.5, "s": "héllo", "big": 2**63 - 1}
    back = parse_json(to_json(doc))
    assert back == doc
    assert type(back["i"]) is int and type(back["x"]) is float and type(back["t"]) is bool


def test_float_that_is_whole_stays_float():
    assert to_json(1.0) == "1.0"
    assert type(parse_json("1.0")) is float
    assert type(parse_json("1")) is int


def test_tuples_become_lists():
    assert parse_json(to_json({"a": (1, (2, 3))})) == {"a": [1, [2, 3]]}


def test_dict_key_order_is_kept():
    doc = {"zeta": 1, "alpha": 2, "mid": {"y": 1, "b": 2}}
    assert list(parse_json(to_json(doc))) == ["zeta", "alpha", "mid"]
    assert to_json(doc) == '{"zeta":1,"alpha":2,"mid":{"y":1,"b":2}}'
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    assert to_json(ordered) == '{"b":1,"a":2}'


def test_indent():
    assert to_json({"a": [1]}, indent=2) == '{\n  "a": [\n    1\n  ]\n}'


def test_non_str_key_names_the_path():
    with pytest.raises(ValidationError) as info:
        to_json({"spec": {"env": {1: "x"}}})
    assert info.value.field == "spec.env"
    assert "str" in info.value.message
    assert info.value.value == "1"


def test_bad_item_in_list_names_the_index():
    with pytest.raises(ValidationError) as info:
        to_json({"args": ["ok", {1, 2}]})
    assert info.value.field == "args[1]"
    assert "set" in info.value.message


def test_int_beyond_int64_is_rejected():
    with pytest.raises(ValidationError) as info:
        to_json({"n": 2**64})
    assert info.value.field == "n"


def test_self_containing_list_is_rejected_not_a_crash():
    loop = []
    loop.append(loop)
    with pytest.raises(ValidationError) as info:
        to_json(loop)
    assert "deeper" in info.value.message


def test_int_like_objects_convert():
    class Index:
        def __index__(self):
            return 42

    assert to_json([Index()]) == "[42]"


def test_str_enums_convert_as_their_value():
    import enum

    class JobType(str, enum.Enum):
        BATCH = "batch"

    assert to_json({"t": JobType.BATCH}) == '{"t":"batch"}'


def test_non_finite_floats_write_null():
    assert to_json([math.inf, math.nan]) == "[null,null]"


def test_parse_errors_are_validation_errors():
    with pytest.raises(ValidationError):
        parse_json("{")
    with pytest.raises(ValidationError):
        parse_json('{"n": 99999999999999999999999}')


def test_job_spec_keeps_nested_values(job_dict):
    job_dict["spec"] = {"b": [1, 2.5, None, True, {"k": "v"}], "a": (1, 2)}
    job = budcore.Job.from_dict(job_dict)
    assert job.spec == {"b": [1, 2.5, None, True, {"k": "v"}], "a": [1, 2]}
    assert list(job.spec) == ["b", "a"]
