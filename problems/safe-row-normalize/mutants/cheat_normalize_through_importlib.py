# rule: no-functional-normalize
# kind: cheat
# F.normalize fetched by a computed name from a module found at run time: no `normalize` in sight.
import importlib


def safe_row_normalize(x, eps=1e-12):
    functional = importlib.import_module("torch.nn." + "functional")
    return getattr(functional, "normal" + "ize")(x, p=2.0, dim=-1, eps=eps)
