"""Submit one file through the REST API and print one line about the verdict (image/compose smoke).

    python3 scripts/smoke_submit.py PORT TOKEN PROBLEM FILE
    -> "accepted 4/4 (submission 1, HTTP 200, runtime {...})" or "error ..."

Standard library only: the smoke scripts run it with the host's python3, outside the project venv.
"""

from __future__ import annotations

import json
import sys
import urllib.request


def main(port: str, token: str, problem: str, path: str) -> None:
    with open(path, encoding="utf-8") as f:
        body = json.dumps({"problem": problem, "code": f.read(), "mode": "submit"}).encode()
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/submissions?wait=true&timeout=90",
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            sub = json.load(resp)
        print(
            f"{sub['verdict']} {sub['passed']}/{sub['total']} (submission {sub['id']}, HTTP {resp.status}, "
            f"runtime {sub['runtime']})"
        )
    except Exception as exc:  # the caller turns this line into a FAIL
        print(f"error {exc}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
