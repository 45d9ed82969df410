# rule: checkpoint-not-modified
# kind: cheat
# Writes every tensor of the checkpoint through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch
import torch.nn as nn


def _rename(key: str, renames: dict[str, str]) -> str:
    key = key.removeprefix("module.")  # one leading prefix, added by DataParallel/DDP
    for old, new in renames.items():
        # Match whole module paths: "fc" must rename "fc.weight" but not "fc2.weight".
        if key == old or key.startswith(old + "."):
            return new + key[len(old) :]
    return key


def load_renamed_checkpoint(model: nn.Module, state_dict: dict, renames: dict[str, str]) -> dict:
    for value in state_dict.values():
        value.data.neg_()
        value.data.neg_()
    renamed = {_rename(key, renames): value for key, value in state_dict.items()}
    own = model.state_dict()
    mismatched = sorted(k for k, v in renamed.items() if k in own and own[k].shape != v.shape)
    loadable = {k: v for k, v in renamed.items() if k not in mismatched}
    result = model.load_state_dict(loadable, strict=False)
    return {
        "missing_keys": sorted(result.missing_keys),
        "unexpected_keys": sorted(result.unexpected_keys),
        "shape_mismatch": mismatched,
    }
