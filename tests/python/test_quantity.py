import pickle

import pytest

from budcore import ArithmeticOverflowError, Quantity, ValidationError


@pytest.mark.parametrize(
    "text, canonical",
    [("1.5", "1500m"), ("1.5Gi", "1536Mi"), ("1000", "1k"), ("0", "0"), ("500m", "500m"),
     ("2Gi", "2Gi"), ("1e3", "1e3"), ("-1.5", "-1500m")],
)
def test_parse_and_canonical_string(text, canonical):
    q = Quantity(text)
    assert str(q) == canonical
    assert Quantity.parse(text) == q
    assert repr(q) == f"Quantity('{canonical}')"


def test_value_and_milli_value_round_up():
    q = Quantity("1.1")
    assert q.value == 2
    assert q.milli_value == 1100
    assert Quantity("2Gi").value == 2 * 1024**3
    assert Quantity("250m").nano == 250_000_000


def test_int_constructors():
    assert Quantity(3) == Quantity("3")
    assert Quantity.from_int(4) == Quantity("4")
    assert Quantity.from_milli(1500) == Quantity("1.5")
    assert Quantity() == Quantity("0") and not Quantity()


def test_format_is_kept():
    assert Quantity("1Gi").format == "BinarySI"
    assert Quantity("1G").format == "DecimalSI"
    assert Quantity("1e9").format == "DecimalExponent"


def test_comparisons_are_by_amount():
    assert Quantity("1Gi") == Quantity("1073741824")
    assert hash(Quantity("1Gi")) == hash(Quantity("1073741824"))
    assert Quantity("500m") < Quantity("1") <= Quantity("1000m") < Quantity("1.001")
    assert Quantity("2") > Quantity("1999m") >= Quantity("1.999")
    assert Quantity("1") != Quantity("2")
    assert sorted([Quantity("2"), Quantity("100m"), Quantity("1")]) == [Quantity("100m"), Quantity("1"), Quantity("2")]


def test_comparison_with_other_types():
    assert Quantity("1") != "1"
    assert not (Quantity("1") == 1)
    with pytest.raises(TypeError):
        Quantity("1") < 2  # noqa: B015


def test_arithmetic_is_exact():
    assert Quantity("1Gi") + Quantity("512Mi") == Quantity("1536Mi")
    assert str(Quantity("1Gi") + Quantity("512Mi")) == "1536Mi"
    assert Quantity("1") - Quantity("1500m") == Quantity("-500m")
    assert Quantity("100m") * 3 == Quantity("300m")
    assert 3 * Quantity("100m") == Quantity("300m")
    assert -Quantity("2") == Quantity("-2")
    total = Quantity()
    for _ in range(10):
        total = total + Quantity("0.1")
    assert total == Quantity("1")


def test_overflow_is_reported_not_wrapped():
    huge = Quantity("100E")
    with pytest.raises(ArithmeticOverflowError):
        huge * 10**15
    with pytest.raises(ArithmeticOverflowError):
        Quantity("100E").value  # noqa: B018 (does not fit int64)


@pytest.mark.parametrize("bad", ["", "1.5.5", "12XB", " 1", "Ki", "abc"])
def test_invalid_text_raises_validation_error(bad):
    with pytest.raises(ValidationError) as info:
        Quantity(bad)
    assert info.value.code == "invalid"
    assert info.value.value == (bad or None)


@pytest.mark.parametrize("bad", [1.5, None, [1], True])
def test_wrong_type_raises_type_error(bad):
    with pytest.raises(TypeError):
        Quantity(bad)


def test_pickle_round_trip():
    q = Quantity("1536Mi")
    assert pickle.loads(pickle.dumps(q)) == q
