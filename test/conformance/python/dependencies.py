"""Conformance: the dependency list [licensed] through python-gitlab's HTTP layer (it has no manager for it) against
the sandbox seeded by test/conformance/deployments-templates.test.ts (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN (a Developer of acme/api), REPORTER_TOKEN. Prints one line per
check, "OK <n> checks" at the end, and exits 1 on the first mismatch.
"""

import os

import gitlab
import gitlab.exceptions as exc
from harness import URL, check, done, guest, raises, user

reporter = gitlab.Gitlab(URL, private_token=os.environ["REPORTER_TOKEN"])
path = "/projects/acme%2Fapi/dependencies"

rows = user.http_list(path, get_all=True)
check("all, by name", [d["name"] for d in rows] == ["express", "minimist", "rails"], str(rows))
check("vulnerabilities for a Developer", rows[1]["vulnerabilities"] == [{"name": "Prototype pollution in minimist", "severity": "critical"}])
comma = user.http_list(path, query_data={"package_manager": "yarn,bundler"}, get_all=True)
check("package_manager comma-joined", [d["name"] for d in comma] == ["minimist", "rails"])
array = user.http_list(path, query_data={"package_manager[]": ["npm", "yarn"]}, get_all=True)
check("package_manager as an array", [d["name"] for d in array] == ["express", "minimist"])
single = user.http_list(path, query_data={"package_manager": "bundler"}, get_all=True)
check("package_manager single", [d["dependency_file_path"] for d in single] == ["Gemfile.lock"])
plain = reporter.http_list(path, get_all=True)
check("no vulnerabilities for a Reporter", all("vulnerabilities" not in d for d in plain) and len(plain) == 3)
raises("an unknown package manager is a 400", exc.GitlabHttpError, 400, lambda: user.http_list(path, query_data={"package_manager": "cargo"}))
raises("authentication is required", exc.GitlabAuthenticationError, 401, lambda: guest.http_list(path))
done()
