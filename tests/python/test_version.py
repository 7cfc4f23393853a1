import re

import budcore


def test_version_comes_from_the_library():
    assert re.fullmatch(r"\d+\.\d+\.\d+", budcore.__version__)
    assert budcore.__version__ == ".".join(map(str, budcore.version_info))


def test_public_names_are_exported():
    for name in budcore.__all__:
        assert hasattr(budcore, name), name


def test_package_ships_type_information():
    import importlib.resources as r

    files = r.files("budcore")
    assert files.joinpath("py.typed").is_file()
    assert files.joinpath("_core.pyi").is_file()
