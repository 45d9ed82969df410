import torch
import torch.nn as nn


def load_renamed_checkpoint(model: nn.Module, state_dict: dict, renames: dict[str, str]) -> dict:
    """Load a checkpoint saved under other names into model.

    For every key: remove one leading "module." prefix, then apply the first rule of `renames`
    (old module path -> new module path) that matches a whole path prefix. Skip keys whose shape
    differs from the model's. Load the rest with strict=False. Do not modify state_dict.

    Returns {"missing_keys": [...], "unexpected_keys": [...], "shape_mismatch": [...]} (sorted).
    """
    result = model.load_state_dict(state_dict, strict=False)  # TODO: rename the keys first
    return {
        "missing_keys": sorted(result.missing_keys),
        "unexpected_keys": sorted(result.unexpected_keys),
        "shape_mismatch": [],
    }
