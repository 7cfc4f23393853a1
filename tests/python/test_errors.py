import pickle

import pytest

import budcore
from budcore import Error


@pytest.mark.parametrize(
    "cls, builtin",
    [
        (budcore.ValidationError, ValueError),
        (budcore.NotFoundError, KeyError),
        (budcore.ArithmeticOverflowError, OverflowError),
        (budcore.UnsupportedError, NotImplementedError),
        (budcore.IoError, OSError),
        (budcore.InternalError, RuntimeError),
    ],
)
def test_errors_are_also_the_matching_builtin(cls, builtin):
    assert issubclass(cls, Error)
    assert issubclass(cls, builtin)


@pytest.mark.parametrize(
    "cls",
    [budcore.ConflictError, budcore.AlreadyExistsError, budcore.QuotaExceededError,
     budcore.BudgetExceededError, budcore.SecurityError],
)
def test_every_error_derives_from_error(cls):
    assert issubclass(cls, Error)
    assert cls.__module__ == "budcore"


def test_already_exists_is_a_conflict():
    assert issubclass(budcore.AlreadyExistsError, budcore.ConflictError)


def test_error_raised_from_python_has_default_attributes():
    e = budcore.ValidationError("boom")
    assert str(e) == "boom"
    assert e.field is None and e.value is None
    # Each class carries its own code, also when raised from Python code.
    assert e.code == "invalid"
    assert budcore.NotFoundError("x").code == "not_found"
    assert budcore.ConflictError("x").code == "conflict"
    assert budcore.AlreadyExistsError("x").code == "already_exists"
    assert budcore.Error("x").code == "internal"
    with pytest.raises(Error):
        raise e


def test_error_from_library_carries_code_field_value_message():
    with pytest.raises(budcore.ValidationError) as info:
        budcore.Job.from_dict({"name": "x", "job_type": "batch", "deployment_type": "docker", "gpu_count": -2})
    e = info.value
    assert e.code == "invalid"
    assert e.field == "gpu_count"
    assert e.value == "-2"
    assert e.message and e.message in str(e)
    assert str(e).startswith("gpu_count: ")


def test_overflow_maps_to_arithmetic_overflow():
    big = budcore.Quantity.from_int(2**62)
    with pytest.raises(budcore.ArithmeticOverflowError) as info:
        (big * 2**62).value
    assert info.value.code == "overflow"
    assert isinstance(info.value, OverflowError)


def test_not_found_str_is_a_sentence_not_a_repr():
    e = budcore.NotFoundError("job 'x' not found")
    assert str(e) == "job 'x' not found"


def test_error_survives_pickle_as_its_class():
    try:
        budcore.Quantity("nope")
    except budcore.ValidationError as e:
        back = pickle.loads(pickle.dumps(e))
    assert type(back) is budcore.ValidationError


MISSING = "/nonexistent-budcore-dir/missing.yaml"


@pytest.mark.parametrize(
    "load, field",
    [
        (lambda: budcore.load_document(MISSING), "path"),
        (lambda: budcore.Pipeline.load(MISSING), "path"),
        (lambda: budcore.quota.load(MISSING), "path"),
        (lambda: budcore.quota.load_kueue(MISSING), "path"),
        (lambda: budcore.cost.load_prices(MISSING), "prices"),
        (lambda: budcore.UsecaseRegistry(False).load(MISSING, None), "path"),
    ],
)
def test_a_missing_file_is_one_io_error_everywhere(load, field):
    # The same error as from C++, C, Rust, Go and (as invalid input) the CLI: core::read_input's.
    with pytest.raises(budcore.IoError) as e:
        load()
    assert e.value.message == f"cannot open file '{MISSING}': No such file or directory"
    assert e.value.code == "io"
    assert e.value.field == field
    assert e.value.value == MISSING
