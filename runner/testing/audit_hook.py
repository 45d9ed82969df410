"""The guard's audit hook (``sys.addaudithook``): the introspection that could reach the judge, refused.

It refuses what could reach the constants of sealed code (``runner.testing.sealed``) or change
it: ``__code__``/``f_code`` of the judge's functions and frames, ``sys._getframe`` landing on a
judge frame, assigning a sealed function's attributes or a sealed object's class,
``gc.get_referrers/get_referents/get_objects``, ``sys.settrace``/``sys.setprofile``,
``sys._current_frames``, another audit hook, ctypes, opening process memory under ``/proc`` and
opening a directory as a descriptor (a relative path from a directory descriptor would escape the
path check), and changing a tensor's class but for a lazy module's materialisation. A refusal
raises :class:`IntegrityError` in the learner's code *and* sends a ``refused`` event, so catching
the exception does not hide it: the host reports a runtime error saying that modifying the judge
is not allowed.
"""

from __future__ import annotations

import _stat
import pathlib
import posix
import types
from collections.abc import Callable
from typing import Any

from runner.records import events
from runner.testing import sealed

MESSAGE = events.MODIFIED
_ALLOWED_PROC_FILES = frozenset(
    {
        "status", "stat", "statm", "cmdline", "environ", "maps", "limits", "cgroup", "comm",
        "mountinfo", "mounts", "meminfo", "cpuinfo", "uptime", "loadavg", "version", "oom_score",
        "oom_score_adj", "io", "online", "possible", "present", "max_map_count", "osrelease",
        "overcommit_memory", "nr_cpus", "sched_getaffinity",
    }
)  # fmt: skip
_REFUSED_EVENTS = frozenset(
    {
        "sys.settrace",
        "sys.setprofile",
        "sys._current_frames",
        "sys.addaudithook",
        "gc.get_referrers",
        "gc.get_referents",
        "gc.get_objects",
    }
)


class IntegrityError(RuntimeError):
    """Raised in the learner's code when it reaches for the judge's internals."""


# The names the templates use; seal() binds each to a constant. Never read at run time.
EMIT: Any = None
RESOLVE: Any = None
SEALED_GLOBALS: Any = None
FunctionType: Any = None
FrameType: Any = None
PosixPath: Any = None
SEALED_TYPES: Any = None  # sealed.SEALED_TYPES, frozen when the audit hook is sealed
SUBCLASS: Any = None
TENSOR_BASE: Any = None
PERMIT: Any = None
S_ISDIR: Any = None
stat: Any = None
readlink: Any = None
getcwd: Any = None
path_str: Any = None
repr_type_name: Any = None
is_directory: Any = None


def _resolve_template(path: str) -> str:
    """The path the kernel would open, resolving every symlink (magic /proc links included)."""
    if not path.startswith("/"):
        path = getcwd() + "/" + path
    pending = path.split("/")
    pending.reverse()
    parts: list[str] = []
    hops = 0
    while pending:
        part = pending.pop()
        if part == "" or part == ".":
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        candidate = "/" + "/".join(parts) + ("/" if parts else "") + part
        try:
            target = readlink(candidate)
        except OSError:
            parts.append(part)
            continue
        hops = hops + 1
        if hops > 40:
            return candidate
        if target.startswith("/"):
            parts = []
        more = target.split("/")
        more.reverse()
        pending.extend(more)
    return "/" + "/".join(parts)


def _audit_template(event: str, args: tuple[Any, ...]) -> None:
    what = ""
    if event == "object.__getattr__":
        name = args[1]
        obj = args[0]
        if name == "__code__":
            if type(obj) is FunctionType and obj.__globals__ is SEALED_GLOBALS:
                what = "reading the code of the judge's function " + obj.__name__
        elif name == "f_code" and type(obj) is FrameType and obj.f_globals is SEALED_GLOBALS:
            what = "reading the code of the judge's frame"
    elif event == "sys._getframe":
        if args[0].f_globals is SEALED_GLOBALS:
            what = "sys._getframe reached the judge's frame"
    elif event == "object.__setattr__":
        obj = args[0]
        if type(obj) is FunctionType and obj.__globals__ is SEALED_GLOBALS:
            what = "changing the judge's function " + obj.__name__
        elif args[1] == "__class__" and type(obj) in SEALED_TYPES:
            what = "changing the class of the judge's object"
        elif args[1] == "__class__" and SUBCLASS(TENSOR_BASE, type(obj)):
            # a tensor keeps its class: the one change torch makes (a lazy module's uninitialised
            # parameter or buffer materialised) holds the permit (runner.testing.lazy_tensors)
            if not (PERMIT[0] is obj and PERMIT[1] is args[2]):
                what = "changing the class of a tensor"
        elif type(obj) is FunctionType and args[1] in ("__code__", "__defaults__", "__kwdefaults__"):
            # torch's functions (a class's methods among them) keep their code: such a change moves
            # no class's version tag (runner.testing.class_versions)
            module = obj.__globals__.get("__name__")
            if type(module) is str and (module == "torch" or module[:6] == "torch."):
                what = "changing the code of a function of " + module
    elif event in REFUSED_EVENTS:
        what = event
    elif event.startswith("ctypes."):
        what = "ctypes (" + event + ")"
    elif event == "open":
        path = args[0]
        if type(path) is bytes:
            path = path.decode("utf-8", "surrogateescape")
        elif type(path) is PosixPath:
            path = path_str(path)
        elif type(path) is not str and type(path) is not int:
            what = "opening a file through a path-like object of type " + repr_type_name(path)
        if type(path) is str:
            where = RESOLVE(path)
            if where == "/proc" or (
                where.startswith("/proc/")
                and "/fd/" not in where
                and where.rpartition("/")[2] not in ALLOWED_PROC_FILES
            ):
                what = "opening " + where
            elif is_directory(where):  # a directory fd would let a relative path escape this check
                what = "opening the directory " + where + " as a file descriptor"
    if what:
        EMIT("refused", what)
        raise IntegrityError(MESSAGE + ": " + what + ".")


def _is_directory_template(path: str) -> bool:
    try:
        return S_ISDIR(stat(path).st_mode)
    except OSError:
        return False
    except ValueError:
        return False


sealed.prepare(_resolve_template, _audit_template, _is_directory_template)

# Read by the sealed templates above, but only through the constants seal() captured.
REFUSED_EVENTS = _REFUSED_EVENTS
ALLOWED_PROC_FILES = _ALLOWED_PROC_FILES


def seal_audit_hook(
    emit: Callable[..., None], type_name: Callable[[object], str], permit: list[Any]
) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook sealed over the emitter. Seal it after the observers: the classes they add
    to ``sealed.SEALED_TYPES`` are frozen into it here. ``permit`` is the cell the sealed
    ``materialize`` writes the one class change it makes into (``runner.testing.lazy_tensors``)."""
    import torch

    resolve = sealed.seal(_resolve_template, readlink=posix.readlink, getcwd=posix.getcwd)
    return sealed.seal(
        _audit_template,
        EMIT=emit,
        RESOLVE=resolve,
        SEALED_GLOBALS=sealed.SEALED_GLOBALS,
        SEALED_TYPES=frozenset(sealed.SEALED_TYPES),
        SUBCLASS=type.__subclasscheck__,
        TENSOR_BASE=torch._C.TensorBase,
        PERMIT=permit,
        FunctionType=types.FunctionType,
        FrameType=types.FrameType,
        PosixPath=pathlib.PosixPath,
        path_str=pathlib.PurePath.__str__,
        repr_type_name=type_name,
        is_directory=sealed.seal(_is_directory_template, S_ISDIR=_stat.S_ISDIR, stat=posix.stat),
    )
