"""The public surface: each package exports its names, and kinds and outcomes are enums that print as words."""

import json

import pytest

import checkers
import theorems
from theorems.errors import DeclarationError
from theorems.statement import Prediction, Target


@pytest.mark.parametrize("package", [theorems, checkers], ids=lambda p: p.__name__)
def test_every_exported_name_exists(package):
    assert package.__all__ and all(hasattr(package, name) for name in package.__all__)


def test_kinds_and_outcomes_are_enums_that_serialize_as_their_values():
    assert json.dumps([theorems.Kind.LIMIT, checkers.Outcome.OUTSIDE]) == '["limit", "outside assumptions"]'
    prediction = Prediction(name="p", kind="limit", statement="", predict=lambda instance: Target.point(0),
                            resolution=lambda instance: 1.0)
    assert prediction.kind is theorems.Kind.LIMIT


def test_an_unknown_kind_is_a_declaration_error():
    with pytest.raises(DeclarationError, match="kind must be one of"):
        Prediction(name="p", kind="limt", statement="", predict=lambda instance: Target.point(0),
                   resolution=lambda instance: 1.0)
