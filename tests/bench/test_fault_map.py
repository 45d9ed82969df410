"""``bench/fault_map.py``'s sorting of page faults by the zygote's mappings (the recording
itself needs ``perf`` and a running load: docs/benchmarks.md, the sixteenth pass)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from runner.sandbox.hugepages import parse_maps

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "fault_map.py"
MAPS = """\
55d0a0000000-55d0a0400000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000200000 rw-p 00000000 00:00 0
7f1000000000-7f1000100000 r-xp 00001000 08:01 42                         /opt/lib/libtorch_cpu.so
7f1000100000-7f1000110000 r--p 00101000 08:01 42                         /opt/lib/libtorch_cpu.so
7f1000110000-7f1000111000 rw-p 00111000 08:01 43                         /opt/lib/libpython3.11.so.1.0
"""


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fault_map", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_spare_fault_is_counted_under_the_mapping_its_address_falls_in() -> None:
    fault_map = _script()
    faults = [
        ("td-spare", 10, 0x55D0A0000010),  # heap
        ("td-spare", 10, 0x7F0000001000),  # anonymous
        ("td-spare", 11, 0x7F1000000FFF),  # code
        ("td-spare", 11, 0x7F1000100000),  # read-only data: the next mapping's first byte
        ("td-spare", 11, 0x7F1000110008),  # writable data
        ("td-spare", 11, 0x10),  # in no mapping of the zygote's
        ("python", 12, 0x55D0A0000010),  # not a spare: left out
    ]
    spares, kinds, files = fault_map.classify(parse_maps(MAPS), faults)
    assert spares == 2
    assert kinds == {
        "anonymous [heap]": 1,
        "anonymous": 1,
        "shared libraries' code": 1,
        "shared libraries' read-only data": 1,
        "shared libraries' writable data": 1,
        "not in the zygote's map (the spare's own)": 1,
    }
    assert files == {"libtorch_cpu.so": 2, "libpython3.11.so.1.0": 1}
