"""Shared by the python-gitlab conformance scripts (run with /usr/bin/python3, which has Debian's python3-gitlab).

Environment: SANDBOX_URL, ADMIN_TOKEN, and USER_TOKEN where a script uses `user`. `check` prints one line per
check and exits 1 on the first mismatch; `done` prints "OK <n> checks", which the vitest runner looks for.
"""

import os
import sys

import gitlab

URL = os.environ["SANDBOX_URL"]
admin = gitlab.Gitlab(URL, private_token=os.environ["ADMIN_TOKEN"])
user = gitlab.Gitlab(URL, private_token=os.environ["USER_TOKEN"]) if "USER_TOKEN" in os.environ else None
guest = gitlab.Gitlab(URL)
_checks = 0


def check(name, condition, detail=""):
    global _checks
    if not condition:
        print(f"FAIL {name} {detail}")
        sys.exit(1)
    _checks += 1
    print(f"ok {name}")


def raises(name, error_class, status, fn):
    """Runs fn, which must raise error_class with the given HTTP status; returns the exception."""
    try:
        fn()
    except error_class as e:
        check(name, e.response_code == status, f"expected {status}, got {e.response_code}: {e.error_message}")
        return e
    check(name, False, f"expected {error_class.__name__}")


def done():
    print(f"OK {_checks} checks")
