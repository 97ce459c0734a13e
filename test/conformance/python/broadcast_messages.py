"""Conformance: python-gitlab's broadcast message manager (gl.broadcastmessages) against the sandbox
(run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""


import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


first = admin.broadcastmessages.create({"message": "Deploy in progress"})
check("create returns the message with defaults", first.message == "Deploy in progress" and first.id > 0)
check(
    "default colours, type and activity",
    first.color == "#E75E40" and first.font == "#FFFFFF" and first.broadcast_type == "banner" and first.active is True,
    str(first.attributes),
)
second = admin.broadcastmessages.create(
    {
        "message": "Maintenance window",
        "starts_at": "2030-01-01T00:00:00Z",
        "ends_at": "2030-01-01T02:00:00Z",
        "color": "#cecece",
        "font": "#000000",
    }
)
check("a future message is not active", second.active is False and second.starts_at == "2030-01-01T00:00:00.000Z")

listed = guest.broadcastmessages.list(all=True)
check("anyone can list, newest first", [m.id for m in listed] == [second.id, first.id], str([m.id for m in listed]))
check("anyone can read one", guest.broadcastmessages.get(first.id).message == "Deploy in progress")

raises(
    "guest cannot create",
    exc.GitlabAuthenticationError,
    401,
    lambda: guest.broadcastmessages.create({"message": "nope"}),
)
raises(
    "user cannot create",
    exc.GitlabCreateError,
    403,
    lambda: user.broadcastmessages.create({"message": "nope"}),
)
as_user = user.broadcastmessages.get(first.id)
as_user.message = "hijacked"
raises("user cannot update", exc.GitlabUpdateError, 403, lambda: as_user.save())
raises("user cannot delete", exc.GitlabDeleteError, 403, lambda: user.broadcastmessages.delete(first.id))

e = raises(
    "an invalid colour is 400",
    exc.GitlabCreateError,
    400,
    lambda: admin.broadcastmessages.create({"message": "x", "color": "blue"}),
)
check("the colour error names the field", "must be a valid color code" in str(e.error_message), str(e.error_message))

first.message = "Deploy finished"
first.color = "#00ff00"
first.save()
again = admin.broadcastmessages.get(first.id)
check("save updates the message", again.message == "Deploy finished" and again.color == "#00ff00", str(again.attributes))
check("save leaves other fields", again.font == "#FFFFFF" and again.starts_at == first.starts_at)

second.delete()
raises("a deleted message is 404", exc.GitlabGetError, 404, lambda: admin.broadcastmessages.get(second.id))
check("list after delete", [m.id for m in admin.broadcastmessages.list(all=True)] == [first.id])

done()
