"""Conformance: python-gitlab's project and group hook managers (project.hooks, group.hooks) against the licensed
sandbox, with /usr/bin/python3.

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import gitlab.exceptions as exc
from harness import admin, check, done, guest, raises, user


group = admin.groups.create({"name": "Hooked", "path": "hooked"})
project = admin.projects.create({"name": "app", "path": "app", "namespace_id": group.id})
me = user.http_get("/user")
project.members.create({"user_id": me["id"], "access_level": 30})

hook = project.hooks.create(
    {
        "url": "https://ci.example.com/hook",
        "token": "py-secret",
        "job_events": True,
        "push_events_branch_filter": "release/*",
    }
)
check("create: the hook with its project", hook.id > 0 and hook.project_id == project.id, str(hook.attributes))
check(
    "create: defaults and the given switches",
    hook.push_events is True
    and hook.job_events is True
    and hook.issues_events is False
    and hook.enable_ssl_verification is True
    and hook.push_events_branch_filter == "release/*",
    str(hook.attributes),
)
check("the token is never returned", "token" not in hook.attributes and "py-secret" not in str(hook.attributes))

hook.note_events = True
hook.push_events = False
hook.save()
again = project.hooks.get(hook.id)
check("save sends the url and the changes", again.note_events is True and again.push_events is False)
check("save leaves the rest", again.job_events is True and again.push_events_branch_filter == "release/*")

e = raises(
    "a URL that is not http(s) is 422",
    exc.GitlabCreateError,
    422,
    lambda: project.hooks.create({"url": "ftp://files.example.com/x"}),
)
check("its message", "Invalid url given" in str(e.error_message), str(e.error_message))
e = raises(
    "a local URL is 422 while local requests are off",
    exc.GitlabCreateError,
    422,
    lambda: project.hooks.create({"url": "http://127.0.0.1:9000/x"}),
)
e = raises(
    "a branch filter that is no branch name is 422",
    exc.GitlabCreateError,
    422,
    lambda: project.hooks.create({"url": "https://ci.example.com/2", "push_events_branch_filter": "a..b"}),
)
check("its message", "Invalid branch filter given" in str(e.error_message), str(e.error_message))

mine = user.projects.get(project.id, lazy=True)
raises("a Developer may not list hooks", exc.GitlabListError, 403, lambda: mine.hooks.list())
raises("a Developer may not read a hook", exc.GitlabGetError, 403, lambda: mine.hooks.get(hook.id))
raises(
    "a guest must sign in",
    exc.GitlabAuthenticationError,
    401,
    lambda: guest.projects.get(project.id, lazy=True).hooks.list(),
)

project.hooks.create({"url": "https://chat.example.com/notify", "issues_events": True})
urls = sorted(h.url for h in project.hooks.list(all=True))
check("list", urls == ["https://chat.example.com/notify", "https://ci.example.com/hook"], str(urls))
hook.delete()
raises("deleted: 404", exc.GitlabGetError, 404, lambda: project.hooks.get(hook.id))

# group hooks [licensed]: the group's Owner
ghook = group.hooks.create({"url": "https://ci.example.com/group", "subgroup_events": True, "releases_events": True})
check(
    "group hook: created with its group and switches",
    ghook.group_id == group.id and ghook.subgroup_events is True and ghook.releases_events is True
    and ghook.push_events is True,
    str(ghook.attributes),
)
ghook.tag_push_events = True
ghook.save()
check("group hook: saved", group.hooks.get(ghook.id).tag_push_events is True)
group.members.create({"user_id": me["id"], "access_level": 40})
raises(
    "a Maintainer of the group may not list its hooks",
    exc.GitlabListError,
    403,
    lambda: user.groups.get(group.id, lazy=True).hooks.list(),
)
e = raises(
    "group hook: a bad URL is 422",
    exc.GitlabCreateError,
    422,
    lambda: group.hooks.create({"url": "not a url"}),
)
group.hooks.delete(ghook.id)
check("group hook: deleted", group.hooks.list() == [])

done()
