"""The guard's emitter: events sent the moment they happen, authenticated under the job's key.

Each event line on the result channel carries a per-job sequence number and a MAC (keyed BLAKE2b:
``runner.records.events.event_mac``) under a key the host generated for this job: the learner's
process can write lines to the channel, but not lines the host accepts. The emitter is sealed
(``runner.testing.sealed``): the key lives only in its constants.

Event body, the exact text that is authenticated (JSON, ASCII): ``[seq, kind, data...]``
with strings only after ``seq``; the line is ``{"type":"event","body":"<body as a JSON
string>","mac":"<hex>"}``, so the host checks the MAC on exactly the text that was sent.
"""

from __future__ import annotations

import _blake2
import _json
import posix
from collections.abc import Callable
from typing import Any

from runner.records import events
from runner.testing import sealed

DATA_CHARS = 300  # longer event strings are replaced (module names are the learner's to choose)

# The names the template uses; seal() binds each to a constant. Never read at run time.
SEQ: Any = None
KEY: Any = None
FD: Any = None
int_repr: Any = None
encode: Any = None
blake2b: Any = None
MAC_BYTES: Any = None
write: Any = None
str_len: Any = None


def _emit_template(kind: str, *data: str) -> None:
    seq = SEQ[0]
    SEQ[0] = seq + 1
    body = "[" + int_repr(seq) + "," + encode(kind)
    for item in data:
        text = encode(item) if type(item) is str else '"?"'
        if str_len(text) > DATA_CHARS:
            text = '"(too long)"'
        body = body + "," + text
    body = body + "]"
    mac = blake2b(body.encode("ascii"), key=KEY, digest_size=MAC_BYTES).hexdigest()
    line = '{"type":"event","body":' + encode(body) + ',"mac":"' + mac + '"}\n'
    view = line.encode("ascii")
    while view:
        view = view[write(FD, view) :]


sealed.prepare(_emit_template)


def seal_emitter(key: bytes | bytearray, fd: int, type_name: Callable[[object], str]) -> Callable[..., None]:
    """The emitter sealed around ``key`` (a ``bytearray`` is a slot it reads at every event) and
    the result channel ``fd``."""
    return sealed.seal(
        _emit_template,
        SEQ=[0],
        KEY=key,
        FD=fd,
        int_repr=int.__repr__,
        encode=_json.encode_basestring_ascii,
        blake2b=_blake2.blake2b,  # an immutable type: its methods cannot be swapped
        MAC_BYTES=events.MAC_BYTES,
        write=posix.write,
        str_len=str.__len__,
        repr_type_name=type_name,
    )
