"""Conformance: python-gitlab's pipeline schedule managers against the sandbox (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""


import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


group = admin.groups.create({"name": "Sched", "path": "sched"})
project = admin.projects.create({"name": "app", "path": "app", "namespace_id": group.id})
user_id = user.users.list(username=user.http_get("/user")["username"])[0].id
project.members.create({"user_id": user_id, "access_level": 30})

s = project.pipelineschedules.create(
    {"description": "nightly", "ref": "main", "cron": "0 2 * * *", "cron_timezone": "Berlin"}
)
check("create: id and fields", s.id > 0 and s.cron == "0 2 * * *" and s.cron_timezone == "Berlin", str(s.attributes))
check("create: active by default, owner is the caller", s.active is True and s.owner["username"] == "root")
check("create: next_run_at is a datetime", isinstance(s.next_run_at, str) and s.next_run_at.endswith("Z"))

e = raises(
    "create: invalid cron is a 400 GitlabCreateError",
    exc.GitlabCreateError,
    400,
    lambda: project.pipelineschedules.create({"description": "bad", "ref": "main", "cron": "99 * * * *"}),
)
check("create: invalid cron message", "is invalid syntax" in str(e.error_message), str(e.error_message))

listed = project.pipelineschedules.list()
check("list", [x.description for x in listed] == ["nightly"], str([x.attributes for x in listed]))
check("list entity has no variables", "variables" not in listed[0].attributes)
check("list scope=inactive is empty", project.pipelineschedules.list(scope="inactive") == [])

s.description = "nightly build"
s.active = False
s.save()
fetched = project.pipelineschedules.get(s.id)
check("update via save()", fetched.description == "nightly build" and fetched.active is False)
check("get: last_pipeline null before play", fetched.last_pipeline is None)

v = fetched.variables.create({"key": "DEPLOY_ENV", "value": "production"})
check("variable create", v.key == "DEPLOY_ENV" and v.value == "production" and v.variable_type == "env_var")
fetched.variables.create({"key": "CONFIG", "value": "a=1", "variable_type": "file"})
v.value = "staging"
v.save()
detail = project.pipelineschedules.get(s.id)
check(
    "variables in detail",
    sorted((x["key"], x["value"], x["variable_type"]) for x in detail.attributes["variables"])
    == [("CONFIG", "a=1", "file"), ("DEPLOY_ENV", "staging", "env_var")],
    str(detail.attributes["variables"]),
)
raises(
    "variable with a bad key is a 400",
    exc.GitlabCreateError,
    400,
    lambda: detail.variables.create({"key": "bad-key", "value": "x"}),
)
detail.variables.delete("CONFIG")
check(
    "variable delete",
    [x["key"] for x in project.pipelineschedules.get(s.id).attributes["variables"]] == ["DEPLOY_ENV"],
)

result = detail.play()
check("play returns the 201 message", result == {"message": "201 Created"}, str(result))
played = project.pipelineschedules.get(s.id)
check("play: last_pipeline set", played.last_pipeline is not None and played.last_pipeline["ref"] == "main")

user_project = user.projects.get(project.id, lazy=True)
user_view = user_project.pipelineschedules.get(s.id)
user_view.description = "hijacked"
raises("developer cannot update a schedule owned by another", exc.GitlabUpdateError, 403, user_view.save)
raises("developer cannot take ownership", exc.GitlabOwnershipError, 403, user_view.take_ownership)
m = project.members.get(user_id)
m.access_level = 40
m.save()
user_view.take_ownership()
check("take_ownership: the caller is the owner", user_view.owner["id"] == user_id, str(user_view.owner))
check("take_ownership persisted", project.pipelineschedules.get(s.id).owner["id"] == user_id)

raises(
    "guest: 401",
    exc.GitlabAuthenticationError,
    401,
    lambda: guest.projects.get(project.id, lazy=True).pipelineschedules.list(),
)

project.pipelineschedules.delete(s.id)
raises("deleted: 404", exc.GitlabGetError, 404, lambda: project.pipelineschedules.get(s.id))

done()
