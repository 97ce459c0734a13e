"""Conformance: python-gitlab's deploy token managers (project.deploytokens, group.deploytokens, gl.deploytokens)
against the sandbox, with /usr/bin/python3.

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import gitlab.exceptions as exc
from harness import admin, check, done, raises, user


group = admin.groups.create({"name": "Deploys", "path": "deploys"})
project = admin.projects.create({"name": "app", "path": "app", "namespace_id": group.id})
me = user.http_get("/user")
project.members.create({"user_id": me["id"], "access_level": 30})

token = project.deploytokens.create(
    {"name": "ci", "scopes": ["read_repository", "read_registry"], "expires_at": "2031-01-02"}
)
check("create answers the token once", len(token.token) >= 20, str(token.attributes))
check(
    "create: the fields",
    token.name == "ci"
    and token.username == f"gitlab+deploy-token-{token.id}"
    and token.scopes == ["read_repository", "read_registry"]
    and token.expires_at == "2031-01-02T00:00:00.000Z",
    str(token.attributes),
)
named = project.deploytokens.create({"name": "pkg", "scopes": ["write_package_registry"], "username": "pkg-bot"})
check("a username of one's own", named.username == "pkg-bot")

listed = project.deploytokens.list()
check("list: both, oldest first", [t.name for t in listed] == ["ci", "pkg"], str([t.attributes for t in listed]))
check("list: the token is not shown again", all("token" not in t.attributes for t in listed))

e = raises(
    "an unknown scope is 400",
    exc.GitlabCreateError,
    400,
    lambda: project.deploytokens.create({"name": "x", "scopes": ["api"]}),
)
check("its message", "scopes does not have a valid value" in str(e.error_message), str(e.error_message))
e = raises(
    "a username with a space is 400",
    exc.GitlabCreateError,
    400,
    lambda: project.deploytokens.create({"name": "x", "scopes": ["read_registry"], "username": "a b"}),
)
check("its message", "Username can contain only letters" in str(e.error_message), str(e.error_message))

mine = user.projects.get(project.id, lazy=True)
raises("a Developer may not list them", exc.GitlabListError, 403, lambda: mine.deploytokens.list())
raises(
    "a Developer may not create one",
    exc.GitlabCreateError,
    403,
    lambda: mine.deploytokens.create({"name": "x", "scopes": ["read_registry"]}),
)

gtoken = group.deploytokens.create({"name": "group-ci", "scopes": ["read_repository"]})
check("a group token", gtoken.name == "group-ci" and len(gtoken.token) >= 20)
check("group list", [t.name for t in group.deploytokens.list()] == ["group-ci"])

every = admin.deploytokens.list()
check("the instance list (administrators)", sorted(t.name for t in every) == ["ci", "group-ci", "pkg"], str(every))
raises("not for a user", exc.GitlabListError, 403, lambda: user.deploytokens.list())

project.deploytokens.delete(token.id)
group.deploytokens.delete(gtoken.id)
check("deleted", [t.name for t in project.deploytokens.list()] == ["pkg"] and group.deploytokens.list() == [])
raises("deleting again is 404", exc.GitlabDeleteError, 404, lambda: project.deploytokens.delete(token.id))

done()
