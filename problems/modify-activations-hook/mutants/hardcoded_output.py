def modify_hook_test() -> dict:
    # Copies the statement's example instead of computing anything.
    return {
        "output_without": [[-0.1667, -0.8871]],
        "output_with": [[-0.2022, -0.5177]],
        "outputs_differ": True,
    }
