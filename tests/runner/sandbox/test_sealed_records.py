"""The sealed encoder encodes as runner.records.values.encode does (the in-process path), and
neither it nor the sealed sender changes when what they would look up is patched."""

from __future__ import annotations

import json
import math
import os

import pytest
import torch

from runner.records import values
from runner.records.check_value import CheckValue
from runner.sandbox import sealed_records

SEALED = sealed_records.make(1024 * 1024)
pytestmark = pytest.mark.skipif(SEALED is None, reason="sealing needs CPython 3.11")

VALUES = [
    None,
    True,
    3,
    -2.5,
    math.nan,
    -math.inf,
    "text",
    [1, [2.0, None], (3, "x")],
    {"a": 1, 2: [True], "nested": {"t": torch.tensor([1.0, math.nan])}},
    torch.arange(6).reshape(2, 3),
    torch.tensor([[0.5, -math.inf]], dtype=torch.float64),
    torch.tensor([True, False]),
    torch.nn.Parameter(torch.ones(2)),
    torch.arange(2000, dtype=torch.float32),
    torch.tensor([1.0, math.nan] * 500),
    CheckValue("integrity", "rule", {"inputs_changed": {"x": None}}, {"changes": {}}),
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_sealed_encoder_encodes_as_values_encode(value: object) -> None:
    assert SEALED is not None
    encode, _ = SEALED
    assert json.dumps(encode(value)) == json.dumps(values.encode(value))


class Sub(torch.Tensor):
    pass


@pytest.mark.parametrize(
    "bad",
    [
        object(),
        {"__tensor__": 1},
        {(1, 2): 3},
        torch.tensor([1j]),
        10**400,
        {1, 2},
        torch.ones(2).as_subclass(Sub),
    ],
    ids=range(7),
)
def test_what_values_encode_refuses_the_sealed_one_refuses(bad: object) -> None:
    assert SEALED is not None
    encode, _ = SEALED
    with pytest.raises(values.UnsupportedValue):
        values.encode(bad)
    with pytest.raises(values.UnsupportedValue):
        encode(bad)


def test_patches_of_what_they_would_look_up_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert SEALED is not None
    encode, send = SEALED
    monkeypatch.setattr(json, "dumps", lambda *a, **k: '{"forged": 1}')
    monkeypatch.setattr(os, "write", lambda fd, data: len(data))
    monkeypatch.setattr(torch.Tensor, "tolist", lambda self: [0], raising=False)
    monkeypatch.setattr(math, "isnan", lambda x: False)
    monkeypatch.setattr(values, "encode", lambda v, _depth=0: 0)
    assert encode(torch.tensor([1.0, math.nan])) == {
        "__tensor__": {"dtype": "float32", "shape": [2], "data": [1.0, {"__float__": "nan"}]}
    }
    read, write = os.pipe()
    try:
        send(write, {"type": "case", "name": "c", "status": "ok", "value": 1})
        assert json.loads(os.read(read, 4096)) == {"type": "case", "name": "c", "status": "ok", "value": 1}
    finally:
        os.close(read)
        os.close(write)
