"""Conformance: python-gitlab's pipeline trigger manager against the sandbox (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import re

import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


group = admin.groups.create({"name": "Trig", "path": "trig"})
project = admin.projects.create({"name": "app", "path": "app", "namespace_id": group.id})
me = user.http_get("/user")
project.members.create({"user_id": me["id"], "access_level": 30})

t = project.triggers.create({"description": "deploy"})
check("create", t.id > 0 and t.description == "deploy" and t.owner["username"] == "root", str(t.attributes))
check("create: full 30-hex token for the owner", re.fullmatch(r"[0-9a-f]{30}", t.token) is not None, t.token)
# python-gitlab checks required attributes itself; the server's 400 is reached through the raw POST.
raises(
    "create without description",
    exc.GitlabHttpError,
    400,
    lambda: admin.http_post(f"/projects/{project.id}/triggers", post_data={}),
)

listed = project.triggers.list()
check("list", [x.id for x in listed] == [t.id])

t.description = "deploy to production"
t.save()
check("update via save()", project.triggers.get(t.id).description == "deploy to production")

user_project = user.projects.get(project.id, lazy=True)
raises("developer cannot list triggers", exc.GitlabListError, 403, lambda: user_project.triggers.list())
m = project.members.get(me["id"])
m.access_level = 40
m.save()
seen = user_project.triggers.get(t.id)
check("another maintainer sees 4 characters", seen.token == t.token[:4], seen.token)
seen.description = "hijack"
raises("another maintainer cannot update", exc.GitlabUpdateError, 403, seen.save)
taken = user.http_post(f"/projects/{project.id}/triggers/{t.id}/take_ownership")
check("take_ownership", taken["owner"]["id"] == me["id"] and taken["token"] == t.token, str(taken))
seen = user_project.triggers.get(t.id)
seen.description = "now mine"
seen.save()
check("update after take_ownership", project.triggers.get(t.id).description == "now mine")

raises("missing trigger: 404", exc.GitlabGetError, 404, lambda: project.triggers.get(999999))
raises(
    "guest: 401",
    exc.GitlabAuthenticationError,
    401,
    lambda: guest.projects.get(project.id, lazy=True).triggers.list(),
)

project.triggers.delete(t.id)
check("delete", project.triggers.list() == [])

done()
