"""Conformance: python-gitlab's notification-settings managers (global, group, project) against the sandbox, and the
error-tracking settings through python-gitlab's HTTP layer (3.12 has no manager for them).

Run with /usr/bin/python3 against a sandbox seeded with test/conformance/more-areas.test.ts's fixture.
Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN, ALICE_TOKEN. Prints one line per check, "OK <n> checks" at the
end, and exits 1 on the first mismatch.
"""

import os

import gitlab
import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401

alice = gitlab.Gitlab(URL, private_token=os.environ["ALICE_TOKEN"])


# Global
settings = alice.notificationsettings.get()
check("global default", settings.level == "participating" and settings.notification_email == "alice@acme.example", str(settings.attributes))
settings.level = "watch"
settings.save()
check("global save()", alice.notificationsettings.get().level == "watch")
settings.level = "foo"
e = raises("invalid level is 400", exc.GitlabUpdateError, 400, lambda: settings.save())
check("invalid level message", e.error_message == "'foo' is not a valid level", str(e.error_message))
raises("authentication required", exc.GitlabAuthenticationError, 401, lambda: guest.notificationsettings.get())

# Group
group = alice.groups.get("acme")
gs = group.notificationsettings.get()
check("group setting created lazily with level global", gs.level == "global" and "events" not in gs.attributes, str(gs.attributes))
gs.level = "custom"
gs.new_note = True
gs.close_issue = False
gs.save()
gs = group.notificationsettings.get()
check(
    "custom shows events",
    gs.level == "custom"
    and gs.events["new_note"] is True
    and gs.events["close_issue"] is False
    and gs.events["failed_pipeline"] is True
    and gs.events["fixed_pipeline"] is True
    and gs.events["new_issue"] is None
    and "new_epic" in gs.events,
    str(gs.attributes),
)

# Project
project = alice.projects.get("acme/api")
ps = project.notificationsettings.get()
check("project setting default", ps.level == "global", str(ps.attributes))
ps.level = "disabled"
ps.save()
check("project save()", project.notificationsettings.get().level == "disabled")
raises(
    "a private project of a non-member is 404",
    exc.GitlabGetError,
    404,
    lambda: user.projects.get(project.id, lazy=True).notificationsettings.get(),
)

# Error-tracking settings (no python-gitlab manager in 3.12, and no http_patch: the client's HTTP layer)
path = f"/projects/{project.id}/error_tracking/settings"
et = admin.http_get(path)
check(
    "error tracking settings",
    et == {
        "active": True,
        "project_name": "api",
        "tracker_external_url": "https://sentry.example.com/acme/api",
        "api_url": "https://sentry.example.com/api/0/projects/acme/api",
    },
    str(et),
)
et = admin.http_request("patch", path, post_data={"active": False}).json()
check("patch active", et["active"] is False, str(et))
raises("developers get 403", exc.GitlabHttpError, 403, lambda: alice.http_get(path))
bare = admin.projects.get("acme/sub/deep")
raises("no settings is 404", exc.GitlabHttpError, 404, lambda: admin.http_get(f"/projects/{bare.id}/error_tracking/settings"))

done()
