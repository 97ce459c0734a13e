"""Conformance: python-gitlab's protected environment manager against the (licensed) sandbox, with /usr/bin/python3.

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""


import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


group = admin.groups.create({"name": "Envs", "path": "envs"})
ops = admin.groups.create({"name": "Ops", "path": "ops"})
project = admin.projects.create({"name": "app", "path": "app", "namespace_id": group.id})
me = user.http_get("/user")
project.members.create({"user_id": me["id"], "access_level": 30})
project.share(ops.id, 30)

env = project.protected_environments.create(
    {
        "name": "production",
        "deploy_access_levels": [{"access_level": 40}, {"user_id": me["id"]}, {"group_id": ops.id}],
    }
)
check("create", env.name == "production" and len(env.deploy_access_levels) == 3, str(env.attributes))
check(
    "descriptions",
    [lvl["access_level_description"] for lvl in env.deploy_access_levels] == ["Maintainers", me["name"], "Ops"],
    str(env.deploy_access_levels),
)
project.protected_environments.create({"name": "review/app", "deploy_access_levels": [{"access_level": 30}]})

names = [e.name for e in project.protected_environments.list()]
check("list sorted by name", names == ["production", "review/app"], str(names))
got = project.protected_environments.get("review/app")
check("get a name with '/'", got.name == "review/app" and got.deploy_access_levels[0]["access_level"] == 30)

e = raises(
    "duplicate is a 409",
    exc.GitlabCreateError,
    409,
    lambda: project.protected_environments.create({"name": "production", "deploy_access_levels": [{"access_level": 40}]}),
)
check("duplicate message", e.error_message == "Protected environment 'production' already exists", str(e.error_message))
outsider = admin.users.create(
    {"username": "outsider", "name": "Outsider", "email": "outsider@example.com", "password": "Passw0rd-Passw0rd"}
)
raises(
    "a user without project access is a 422",
    exc.GitlabCreateError,
    422,
    lambda: project.protected_environments.create({"name": "qa", "deploy_access_levels": [{"user_id": outsider.id}]}),
)
raises(
    "a developer cannot list",
    exc.GitlabListError,
    403,
    lambda: user.projects.get(project.id, lazy=True).protected_environments.list(),
)

got.delete()
project.protected_environments.delete("production")
check("deleted", project.protected_environments.list() == [])
raises("deleted: 404", exc.GitlabGetError, 404, lambda: project.protected_environments.get("production"))

done()
