"""Conformance: python-gitlab's system hook manager (gl.hooks) against the sandbox (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import os

import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


raises("guest cannot list hooks", exc.GitlabAuthenticationError, 401, lambda: guest.hooks.list())
raises("user cannot list hooks", exc.GitlabListError, 403, lambda: user.hooks.list())
raises("user cannot create hooks", exc.GitlabCreateError, 403, lambda: user.hooks.create({"url": "http://x.example"}))

hook = admin.hooks.create(
    {
        "url": "https://hooks.example.com/system",
        "token": "py-secret",
        "push_events": True,
        "tag_push_events": False,
        "merge_requests_events": True,
        "enable_ssl_verification": False,
    }
)
check("create returns the hook object", hook.id > 0 and hook.url == "https://hooks.example.com/system")
check(
    "create applies the booleans",
    hook.push_events is True
    and hook.tag_push_events is False
    and hook.merge_requests_events is True
    and hook.enable_ssl_verification is False
    and hook.repository_update_events is True,
    str(hook.attributes),
)
check("the token is never returned", "token" not in hook.attributes and "py-secret" not in str(hook.attributes))

second = admin.hooks.create({"url": "http://localhost:8080/second"})
hooks = admin.hooks.list(all=True)
check("list returns both hooks in id order", [h.id for h in hooks] == [hook.id, second.id], str([h.id for h in hooks]))
check("listed hooks carry no token", all("token" not in h.attributes for h in hooks))

sample = admin.hooks.get(hook.id)
check(
    "get is the test call and returns the sample payload",
    sample.event_name == "project_create"
    and sample.name == "Ruby"
    and sample.path == "ruby"
    and sample.project_id == 1
    and sample.owner_name == "Someone"
    and sample.owner_email == "example@gitlabhq.com",
    str(sample.attributes),
)
# A sandbox-only debugging endpoint (not part of the platform), read with the client's own HTTP session.
deliveries = admin.session.get(
    f"{URL}/-/sandbox/system_hooks/deliveries", headers={"PRIVATE-TOKEN": os.environ["ADMIN_TOKEN"]}
).json()
check(
    "the test call recorded a delivery",
    isinstance(deliveries, list) and deliveries[-1]["hook_id"] == hook.id and deliveries[-1]["token_sent"] is True,
    str(deliveries),
)

raises("test call on a missing hook is 404", exc.GitlabGetError, 404, lambda: admin.hooks.get(99999))
e = raises("create without a valid url is 400", exc.GitlabCreateError, 400, lambda: admin.hooks.create({"url": "ftp://x"}))
check("the url error names the field", "url" in str(e.error_message), str(e.error_message))

hook.delete()
check("delete removes the hook", [h.id for h in admin.hooks.list(all=True)] == [second.id])
raises("delete of a deleted hook is 404", exc.GitlabDeleteError, 404, lambda: admin.hooks.delete(hook.id))
second.delete()
check("no hooks left", admin.hooks.list(all=True) == [])

done()
