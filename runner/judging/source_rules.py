"""The source policy's rules as data: what judged code may import and name, and why the rest is
refused (the reasons are the learners' messages). ``runner.judging.source_policy`` applies them."""

from __future__ import annotations

import sys

# Modules judged code may import (and their submodules), besides torch's public ones.
ALLOWED_MODULES = frozenset(
    {
        "__future__",
        "abc",
        "bisect",
        "cmath",
        "collections",
        "contextlib",
        "copy",
        "dataclasses",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "heapq",
        "itertools",
        "math",
        "numbers",
        "random",
        "statistics",
        "time",
        "typing",
    }
)
# Public parts of torch that reach the dispatcher's registry, run code given as data, start
# threads or processes, or change what every torch call does: not what an exercise is about.
DENIED_TORCH = {
    "torch.ops": "the dispatcher's operator registry (private kernels and redispatch are reachable there)",
    "torch.library": "it registers kernels that replace PyTorch's own operations",
    "torch.overrides": "it intercepts every torch function (the judge's own observation uses it)",
    "torch.jit": "it compiles and forks code outside the Python the judge observes",
    "torch.compile": "it compiles code outside the Python the judge observes",
    "torch.compiler": "it compiles code outside the Python the judge observes",
    "torch.fx": "it generates and runs Python code",
    "torch.load": "it unpickles data, which can run arbitrary code",
    "torch.serialization": "it unpickles data, which can run arbitrary code",
    "torch.package": "it unpickles and imports packaged code",
    "torch.hub": "it downloads and runs code",
    "torch.multiprocessing": "it starts processes",
    "torch.distributed": "it starts processes and opens network connections",
    "torch.utils.cpp_extension": "it compiles and loads native code",
    "torch.utils.model_zoo": "it downloads data",
    "torch.profiler": "it hooks into the dispatcher",
    "torch.autograd.profiler": "it hooks into the dispatcher",
    "torch.classes": "it loads native classes",
    "torch.futures": "it runs work on other threads",
    "torch.utils.benchmark": "it runs statements given as strings",
    "torch.export": "it compiles code outside the Python the judge observes",
    "torch.onnx": "it compiles code outside the Python the judge observes",
    "torch.utils.tensorboard": "it writes files and starts threads",
    "torch.utils.bundled_inputs": "it builds TorchScript code",
    "torch.utils.mobile_optimizer": "it builds TorchScript code",
    "torch.utils.jit": "it builds TorchScript code",
    "torch.utils.dlpack": (
        "it shares a tensor's memory below its version counter, where a write leaves no trace"
    ),
    # Saved-tensor hooks replace what every operation keeps for backward: pushed inside the
    # judge's own measurement (the innermost hooks win), they hide every saved activation from it.
    **dict.fromkeys(
        (
            "torch.autograd.graph.saved_tensors_hooks",
            "torch.autograd.graph.save_on_cpu",
            "torch.autograd.graph.disable_saved_tensors_hooks",
            "torch.autograd.graph.allow_mutation_on_saved_tensors",
        ),
        "it changes what autograd keeps for the backward pass, which the judge measures",
    ),
    # Selective checkpointing keeps the activations its policy names, out of the judge's sight.
    **dict.fromkeys(
        (
            "torch.utils.checkpoint.create_selective_checkpoint_contexts",
            "torch.utils.checkpoint.CheckpointPolicy",
            "torch.utils.checkpoint.SelectiveCheckpointContext",
        ),
        "selective checkpointing keeps activations that checkpointing is meant to free",
    ),
}
# Public setters of process-wide torch state: one call changes what every later torch call in the
# process does, the judge's tests in every later case included, and nothing puts it back. Refused by
# name wherever it is read (an import, a path, an alias, an attribute of any object), each with what
# to write instead; a problem's `allow` opens exactly the name it lists. What stays allowed, and why:
# `torch.manual_seed` (the judge seeds each job and shifts a learner's seeds per case),
# `torch.set_printoptions` and `torch.set_warn_always` (they change text on the learner's own
# output, never a value the tests observe), and `torch.set_grad_enabled`, `set_multithreading_enabled`
# and `set_view_replay_enabled` inside `with` (SCOPED_SETTINGS: put back when the block ends).
_DEFAULT = "it changes a process-wide default the tests rely on"
_CREATE = "where you create tensors instead"
_ANOMALY = (
    "anomaly detection is a debugging aid: it watches every backward pass in the process and records "
    "the stack of every operation, the judge's own included. Remove it before submitting (it is for "
    "finding where a NaN comes from on your own machine)"
)
PROCESS_WIDE_SETTINGS = {
    "set_default_dtype": f"{_DEFAULT} (the dtype of every new tensor): pass `dtype=` {_CREATE}",
    "set_default_tensor_type": f"{_DEFAULT} (the type of every new tensor): pass `dtype=` {_CREATE}",
    "set_default_device": f"{_DEFAULT} (the device of every new tensor): pass `device=` {_CREATE}",
    "set_detect_anomaly": _ANOMALY,
    "detect_anomaly": _ANOMALY,
    "set_anomaly_enabled": _ANOMALY,
    "use_deterministic_algorithms": (
        "it changes which kernels every torch call in the process may use, the tests' included. The "
        "judge runs on one CPU thread, where your results are already reproducible: remove it"
    ),
    "set_deterministic_debug_mode": (
        "it changes what every torch call in the process does, the tests' included: remove it"
    ),
    **dict.fromkeys(
        ("set_num_threads", "set_num_interop_threads"),
        "your code runs on one thread here, and the judge sets torch's threads: remove it",
    ),
    "set_flush_denormal": (
        "it changes floating-point arithmetic for every tensor in the process, the tests' included: remove it"
    ),
    "set_float32_matmul_precision": (
        "it changes how every float32 matrix product in the process is rounded, the tests' included: "
        "remove it (or convert with `.to(torch.bfloat16)` where you mean lower precision)"
    ),
    **dict.fromkeys(
        (
            "set_autocast_enabled",
            "set_autocast_cpu_enabled",
            "set_autocast_dtype",
            "set_autocast_cpu_dtype",
            "set_autocast_gpu_dtype",
            "set_autocast_cache_enabled",
            "set_autocast_ipu_enabled",
            "set_autocast_ipu_dtype",
            "set_autocast_xla_enabled",
            "set_autocast_xla_dtype",
        ),
        "it changes the dtype every later operation in the process computes in, the tests' included: "
        "use `with torch.autocast(...):` around your own code instead",
    ),
    # torch.backends' setters: which kernels (oneDNN, NNPACK, the attention backends, the linear
    # algebra library) every later torch call in the process uses.
    **dict.fromkeys(
        (
            "set_flags",
            "preferred_linalg_library",
            "preferred_blas_library",
            "preferred_rocm_fa_library",
            "enable_operations",
            "disable_operations",
            "enable_dispatch_keys",
            "disable_dispatch_keys",
        ),
        "it changes which kernels every later torch call in the process uses, the tests' included: "
        "remove it (the judge runs torch's defaults)",
    ),
    **dict.fromkeys(
        (
            "set_fastpath_enabled",
            "enable_flash_sdp",
            "enable_mem_efficient_sdp",
            "enable_math_sdp",
            "enable_cudnn_sdp",
            "allow_fp16_bf16_reduction_math_sdp",
        ),
        "it changes which attention kernels every later call in the process uses, the tests' "
        "included: use `with torch.nn.attention.sdpa_kernel(...):` around your own code instead",
    ),
}
# Setters that are also context managers and take effect when called or entered: inside `with` (or
# as a decorator) what they set is put back when the block ends; called on their own, kept as a
# value or entered by hand they stay in force. Each: (what it changes, what to write instead).
_GRAD = "autograd's mode"
SCOPED_SETTINGS = {
    "set_grad_enabled": (_GRAD, "`with torch.set_grad_enabled(...):` (or `with torch.no_grad():`)"),
    "set_multithreading_enabled": (_GRAD, "`with torch.autograd.set_multithreading_enabled(...):`"),
    "set_view_replay_enabled": (_GRAD, "`with torch.autograd.grad_mode.set_view_replay_enabled(...):`"),
    **dict.fromkeys(
        ("sdpa_kernel", "sdp_kernel"),
        (
            "which attention kernels `scaled_dot_product_attention` may use",
            "`with torch.nn.attention.sdpa_kernel(...):`",
        ),
    ),
    "check_sparse_tensor_invariants": (
        "whether every sparse tensor constructor checks its arguments",
        "`with torch.sparse.check_sparse_tensor_invariants():` (or pass `check_invariants=True`)",
    ),
}
# torch.backends holds process-wide switches, as modules and flag groups whose attributes are
# properties: reading them is allowed (`torch.backends.mps.is_available()`,
# `torch.backends.mkldnn.enabled`); assigning one, or holding one of these objects as a value (where
# an assignment through it could not be read), is not. BACKEND_SCOPED are its context managers,
# allowed as `with` items only, like SCOPED_SETTINGS (`flags` is too common a name to refuse on
# every object). The names are torch's (tests/runner/judging/test_backend_settings.py compares them
# with the installed torch).
BACKENDS = "torch.backends"
BACKEND_NAMESPACES = frozenset(
    {"cpu", "cuda", "cudnn", "cusparselt", "kleidiai", "mha", "miopen", "mkl", "mkldnn", "mps"}
    | {"nnpack", "openmp", "opt_einsum", "python_native", "quantized", "xnnpack", "xeon", "m"}
    | {"matmul", "conv", "rnn", "cufft_plan_cache"}
)
BACKEND_SCOPED = {
    "flags": ("the kernels torch's backends use", "`with torch.backends.<backend>.flags(...):`"),
    "verbose": ("what torch's backends print", "`with torch.backends.<backend>.verbose(...):`"),
}
BACKEND_WRITE = (
    "torch.backends' flags are process-wide: one assignment changes which kernels every later torch "
    "call in the process uses, the tests' included. Remove it (the judge runs torch's defaults)"
)
# Builtins that run code from strings, reach frames and namespaces, or open files.
DENIED_BUILTINS = {
    "exec": "it runs code given as a string",
    "eval": "it runs code given as a string",
    "compile": "it builds code from a string",
    "__import__": "it imports a module by a computed name",
    "globals": "it exposes the module's namespace",
    "locals": "it exposes a frame's namespace",
    "vars": "it exposes an object's namespace",
    "breakpoint": "it starts a debugger",
    "open": "judged code has no files to read",
    "input": "judged code reads its arguments, not standard input",
    "memoryview": "it exposes raw memory",
    "help": "it is for the interactive prompt",
    "exit": "the judge ends the program, not the solution",
    "quit": "the judge ends the program, not the solution",
}
# Builtins that may only be called with a constant attribute name (else: attribute access by a
# computed name, which the rules above cannot read).
NAMED_ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
# Dunder attributes that may be read: the object protocol, nothing that leads to a namespace,
# a frame, a class hierarchy or code.
ALLOWED_DUNDER_ATTRIBUTES = frozenset(
    {
        "__init__",
        "__name__",
        "__qualname__",
        "__doc__",
        "__len__",
        "__iter__",
        "__next__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__contains__",
        "__call__",
        "__repr__",
        "__str__",
    }
)
# Dunder names that may be used as plain names.
ALLOWED_DUNDER_NAMES = frozenset({"__name__", "__doc__", "__file__", "__all__", "__slots__"})
# Special methods a solution may not define: they hook into torch's dispatch, the interpreter's
# class machinery or object lifetime, where code runs outside the case that called it.
DENIED_SPECIAL_METHODS = frozenset(
    {
        "__torch_function__",
        "__torch_dispatch__",
        "__del__",
        "__getattribute__",
        "__init_subclass__",
        "__set_name__",
        "__class_getitem__",
        "__mro_entries__",
        "__prepare__",
        "__instancecheck__",
        "__subclasscheck__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
        "__setstate__",
        "__new__",
        # The receiving end of an attribute written by a computed name inside library code
        # (`functools.update_wrapper`'s string lists once handed `f.__globals__` to one).
        "__setattr__",
        "__delattr__",
        "__set__",
        "__delete__",
        "__deepcopy__",  # receives deepcopy's memo, which keeps the originals of all it copied
        # A tensor made from memory at an address the object states (numpy where a problem allows
        # it, CUDA builds, DLPack): a read of the judge's memory, the key included.
        "__array_interface__",
        "__array_struct__",
        "__cuda_array_interface__",
        "__dlpack__",
        "__dlpack_device__",
    }
)
# Functions allowed only in their plain form, one positional argument called directly: their other
# arguments reach what the policy refuses by name (and kept as a value, they could get any).
PLAIN_CALL_ONLY = {
    "functools.wraps": (
        "its other arguments name the attributes it copies as strings, which reach every private name "
        "(write `@functools.wraps(f)`)"
    ),
    "copy.deepcopy": (
        "its memo keeps the original of everything it copied, private tables and namespaces included "
        "(write `copy.deepcopy(x)`)"
    ),
}
# Attribute names that lead out of Python's objects into frames, code and namespaces, or that
# install process-wide hooks, whatever object they are read on.
DENIED_ATTRIBUTES = {
    **dict.fromkeys(
        ("f_globals", "f_locals", "f_back", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next"),
        "it reaches the interpreter's frames",
    ),
    **dict.fromkeys(
        ("gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code", "co_code", "co_consts"),
        "it reaches the interpreter's frames and code",
    ),
    "mro": "it walks the class hierarchy",
    **dict.fromkeys(
        ("untyped_storage", "storage", "set_", "from_dlpack", "to_dlpack", "data_ptr"),
        "it reaches a tensor's memory below its version counter, where a write leaves no trace "
        "(use tensor operations)",
    ),
    "numpy": (
        "it shares the tensor's memory with a numpy array, whose writes the judge cannot see "
        "(use tensor operations; `.tolist()` reads values; a problem that needs numpy allows it)"
    ),
    "redispatch": "it calls a kernel below the dispatcher, where the judge cannot see it",
    "format_map": "it reads attributes by names written in a string",
    "attrgetter": "it reads attributes by names written in a string (write `obj.name`)",
    "methodcaller": "it calls methods by names written in a string (write `obj.name(...)`)",
    "get_type_hints": "it evaluates strings as code",
    "update_wrapper": (
        "it copies attributes named in strings, private ones included (decorate with `@functools.wraps(f)`)"
    ),
    "make_dataclass": "it generates and runs code",
    "from_file": "it reads files",
    "ForwardRef": "it evaluates strings as code",
    **dict.fromkeys(
        (
            "register_module_forward_hook",
            "register_module_forward_pre_hook",
            "register_module_backward_hook",
            "register_module_full_backward_hook",
            "register_module_full_backward_pre_hook",
            "register_module_buffer_registration_hook",
            "register_module_module_registration_hook",
            "register_module_parameter_registration_hook",
        ),
        "it installs a hook on every module in the process (register the hook on the module instead)",
    ),
}
# Names of torch's internal tables and private parts: never allowed on ``self`` either, so a
# learner's own class cannot stand in for torch's.
TORCH_INTERNAL_NAMES = frozenset(
    {
        "_C",
        "_VF",
        "_nn",
        "_ops",
        "_decomp",
        "_refs",
        "_prims",
        "_parameters",
        "_buffers",
        "_modules",
        "_non_persistent_buffers_set",
        "_forward_hooks",
        "_forward_hooks_with_kwargs",
        "_forward_hooks_always_called",
        "_forward_pre_hooks",
        "_forward_pre_hooks_with_kwargs",
        "_backward_hooks",
        "_backward_pre_hooks",
        "_is_full_backward_hook",
        "_state_dict_hooks",
        "_state_dict_pre_hooks",
        "_load_state_dict_pre_hooks",
        "_load_state_dict_post_hooks",
        "_version",
        "_grad",
        "_grad_fn",
        "_base",
        "_cdata",
        "_optimizer_step_pre_hooks",
        "_optimizer_step_post_hooks",
        "_optimizer_state_dict_pre_hooks",
        "_optimizer_state_dict_post_hooks",
        "_optimizer_load_state_dict_pre_hooks",
        "_optimizer_load_state_dict_post_hooks",
        "_zero_grad_profile_name",
        "_hook_for_profile",
        "_patch_step_function",
        "_call_impl",
        "_wrapped_call_impl",
        "_apply",
        "_get_name",
        "_named_members",
    }
)
# Modules that are never reached through another module's attribute (``torch.sys``).
MODULE_ESCAPES = frozenset(
    {"sys", "os", "builtins", "ctypes", "gc", "inspect", "importlib", "threading", "multiprocessing"}
    | {"subprocess", "pickle", "marshal", "codecs", "io", "types", "weakref", "signal", "socket", "runner"}
    | {"ctypeslib"}
)
# Modules one module imports are attributes of it (`torch.storage.np`, `torch.autograd.graph.logging`,
# `dataclasses.re`): a path's later part that names a module outside the allow-list reaches that
# module, whatever imported it. Read by name (the policy reads source, not types): the standard
# library's module names, less those torch also uses for its own functions, and the third-party
# modules (and the short names) torch binds in its public modules.
TORCH_NAMES_LIKE_MODULES = frozenset({"chunk", "profile", "select", "trace"})
FOREIGN_MODULE_NAMES = (frozenset(sys.stdlib_module_names) - ALLOWED_MODULES - TORCH_NAMES_LIKE_MODULES) | {
    "np",
    "numpy",
    "mp",
    "python_multiprocessing",
    "reducer",
    "reduction",
    "sympy",
    "typing_extensions",
}
# Parts of an allowed module that stay refused: allowing ``sys`` (a hostile-output test writes to
# ``sys.stdout``) opens its streams, not every module's namespace or the interpreter's hooks.
DENIED_UNDER_ALLOWANCE = {
    **dict.fromkeys(
        ("sys.modules", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache", "sys.path"),
        "it reaches every module's namespace and the import system",
    ),
    **dict.fromkeys(
        (
            "sys.settrace",
            "sys.setprofile",
            "sys.addaudithook",
            "sys.setrecursionlimit",
            "sys.setswitchinterval",
        ),
        "it changes how the interpreter runs the judge",
    ),
}
NEVER_ALLOWED = ("runner",)  # the judge's own package: a problem cannot allow it
# Names no problem can allow, because allowing them opens more than they name: a module's
# namespace written as a dict (read-only modules see attribute writes only), computed attribute
# names and code from strings (every private name again), the interpreter's loaders and memory.
NEVER_ALLOWED_NAMES = {
    **dict.fromkeys(
        ("vars", "globals", "locals", "__dict__", "__globals__", "__builtins__"),
        "it hands out a module's namespace as a dict, whose writes would rebind what the judge reads",
    ),
    **dict.fromkeys(
        ("importlib", "builtins", "gc", "ctypes"),
        "it reaches every module's namespace and the interpreter's memory",
    ),
    **dict.fromkeys(
        ("getattr", "setattr", "delattr", "hasattr", "exec", "eval", "compile", "__import__"),
        "with it, a name computed at run time reaches every private name the policy refuses",
    ),
    **dict.fromkeys(
        ("__code__", "__closure__", "__class__", "__subclasses__", "__bases__", "__mro__"),
        "it reaches code and classes the judge seals",
    ),
}
# Setters that cannot run in the sandbox, whatever a problem allows: every call ends in a runtime
# error, so an allowance of one would only turn the policy's message into that error. Validation
# refuses such an allowance with what the author can do instead.
SETTERS_THAT_CANNOT_RUN = {
    **dict.fromkeys(
        ("set_default_dtype", "set_default_tensor_type"),
        "it rebinds `torch.Storage`, and torch's modules are read-only while judged code runs, so every "
        "call ends in a runtime error (and a default left changed would reach the next case's tests). "
        "Convert the inputs in tests.py, or ask for `dtype=` where the solution creates tensors",
    ),
    "set_num_interop_threads": (
        "torch refuses it once parallel work has started, which the judge's warm-up has done, so every "
        "call ends in a runtime error (the judge sets torch's threads)"
    ),
}
KILLED_BY_POLICY = "source policy"  # what validation's kill matrix says killed a refused mutant
