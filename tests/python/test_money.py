import decimal
import pickle

import pytest

from budcore import Money, Quantity, ValidationError


def test_parse_forms():
    assert Money("12.34", "USD") == Money("12.34 USD") == Money("USD 12.34") == Money.parse("12.34 USD")
    m = Money("12.5", "EUR")
    assert m.currency == "EUR"
    assert m.amount == "12.5"
    assert m.amount_string(2) == "12.50"
    assert str(m) == "12.50 EUR"
    assert repr(m) == "Money('12.50 EUR')"
    assert m.units == 12_500_000_000_000


def test_int_and_decimal_amounts():
    assert Money(5, "USD") == Money("5", "USD")
    assert Money(decimal.Decimal("0.00097"), "USD") == Money("0.00097", "USD")
    assert Money("0.00097", "USD").to_decimal() == decimal.Decimal("0.00097")


def test_float_amount_is_refused():
    with pytest.raises(TypeError):
        Money(0.1, "USD")


def test_arithmetic_is_exact():
    assert Money("0.1", "USD") + Money("0.2", "USD") == Money("0.3", "USD")
    assert Money("1", "USD") - Money("0.01", "USD") == Money("0.99", "USD")
    assert Money("0.00097", "USD") * 3600 == Money("3.492", "USD")
    assert 2 * Money("1.25", "USD") == Money("2.5", "USD")
    assert -Money("1.5", "USD") == Money("-1.5", "USD")
    total = Money.zero("USD")
    for _ in range(1000):
        total = total + Money("0.001", "USD")
    assert total == Money("1", "USD")


def test_price_times_quantity():
    # 1.5 GPUs for one unit of time at 2.00 USD.
    assert Money("2", "USD") * Quantity("1500m") == Money("3", "USD")


def test_round_half_even():
    assert Money("2.345", "USD").round(2) == Money("2.34", "USD")
    assert Money("2.355", "USD").round(2) == Money("2.36", "USD")


def test_comparisons_and_hash():
    assert Money("1", "USD") < Money("1.01", "USD") <= Money("1.01", "USD")
    assert Money("2", "USD") > Money("1.99", "USD")
    assert Money("1", "USD") != Money("1", "EUR")
    assert hash(Money("1.0", "USD")) == hash(Money("1", "USD"))
    assert not Money.zero("USD") and Money("0.01", "USD")


def test_mixing_currencies_is_a_validation_error():
    with pytest.raises(ValidationError) as info:
        Money("1", "USD") + Money("1", "EUR")
    assert info.value.field == "currency"
    with pytest.raises(ValidationError):
        Money("1", "USD") < Money("1", "EUR")  # noqa: B015


@pytest.mark.parametrize(
    "args",
    [("1e-3", "USD"), ("abc", "USD"), ("1", "usd"), ("1", "US"), ("12.34",)],
)
def test_invalid_input(args):
    with pytest.raises(ValidationError):
        Money(*args)


def test_pickle_round_trip():
    m = Money("0.000000000001", "JPY")
    assert pickle.loads(pickle.dumps(m)) == m
