"""Conformance: python-gitlab's protected branch and tag managers (project.protectedbranches,
project.protectedtags) against the licensed sandbox, with /usr/bin/python3.

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import gitlab.exceptions as exc
from harness import admin, check, done, raises, user


group = admin.groups.create({"name": "Guarded", "path": "guarded"})
ops = admin.groups.create({"name": "Ops", "path": "ops"})
project = admin.projects.create({"name": "app", "path": "app", "namespace_id": group.id})
me = user.http_get("/user")
project.members.create({"user_id": me["id"], "access_level": 30})
project.share(ops.id, 30)

main = project.protectedbranches.create(
    {"name": "main", "push_access_level": 0, "merge_access_level": 30, "allow_force_push": True}
)
check(
    "protect: the levels and their descriptions",
    main.push_access_levels[0]["access_level"] == 0
    and main.push_access_levels[0]["access_level_description"] == "No one"
    and main.merge_access_levels[0]["access_level_description"] == "Developers + Maintainers"
    and main.unprotect_access_levels[0]["access_level"] == 40,
    str(main.attributes),
)
check(
    "protect: force push and code owners",
    main.allow_force_push is True and main.code_owner_approval_required is False,
)

release = project.protectedbranches.create(
    {
        "name": "release/*",
        "allowed_to_push": [{"user_id": me["id"]}, {"group_id": ops.id}],
        "allowed_to_merge": [{"access_level": 40}],
    }
)
check(
    "a wildcard with users and groups allowed to push",
    [(lvl["user_id"], lvl["group_id"]) for lvl in release.push_access_levels] == [(me["id"], None), (None, ops.id)]
    and release.push_access_levels[1]["access_level_description"] == "Ops",
    str(release.push_access_levels),
)
got = project.protectedbranches.get("release/*")
check("get a wildcard name with '/'", got.name == "release/*" and len(got.push_access_levels) == 2)

e = raises(
    "protecting a name twice is 409",
    exc.GitlabCreateError,
    409,
    lambda: project.protectedbranches.create({"name": "main"}),
)
check("its message", e.error_message == "Protected branch 'main' already exists", str(e.error_message))
raises(
    "an access level of 50 is 400",
    exc.GitlabCreateError,
    400,
    lambda: project.protectedbranches.create({"name": "x", "push_access_level": 50}),
)
outsider = admin.users.create(
    {"username": "outsider", "name": "Outsider", "email": "outsider@example.com", "password": "Passw0rd-Passw0rd"}
)
e = raises(
    "a user without access to the project is 422",
    exc.GitlabCreateError,
    422,
    lambda: project.protectedbranches.create({"name": "x", "allowed_to_merge": [{"user_id": outsider.id}]}),
)
check("its message", "Merge access levels user is not a member of the project" in e.error_message, str(e.error_message))

names = [b.name for b in project.protectedbranches.list(search="release")]
check("search", names == ["release/*"], str(names))

patched = admin.http_request(
    "patch", f"/projects/{project.id}/protected_branches/main", post_data={"code_owner_approval_required": True}
).json()
check("PATCH sets code owner approval", patched["code_owner_approval_required"] is True, str(patched))
check("and only that", project.protectedbranches.get("main").push_access_levels[0]["access_level"] == 0)

mine = user.projects.get(project.id, lazy=True)
raises("a Developer may not list protected branches", exc.GitlabListError, 403, lambda: mine.protectedbranches.list())
raises(
    "a Developer may not protect a branch",
    exc.GitlabCreateError,
    403,
    lambda: mine.protectedbranches.create({"name": "dev"}),
)

project.protectedbranches.delete("release/*")
raises("unprotected: 404", exc.GitlabGetError, 404, lambda: project.protectedbranches.get("release/*"))
check("what is left", [b.name for b in project.protectedbranches.list()] == ["main"])

# protected tags
tag = project.protectedtags.create({"name": "v*", "create_access_level": 30})
check(
    "protect a tag pattern",
    tag.name == "v*" and tag.create_access_levels[0]["access_level_description"] == "Developers + Maintainers",
    str(tag.attributes),
)
default = project.protectedtags.create({"name": "release-*"})
check("the default create level is Maintainers", default.create_access_levels[0]["access_level"] == 40)
e = raises("a tag twice is 409", exc.GitlabCreateError, 409, lambda: project.protectedtags.create({"name": "v*"}))
check("its message", e.error_message == "Protected tag 'v*' already exists", str(e.error_message))
check("get a tag", project.protectedtags.get("v*").create_access_levels[0]["access_level"] == 30)
raises("a Developer may not list protected tags", exc.GitlabListError, 403, lambda: mine.protectedtags.list())
project.protectedtags.delete("v*")
check("tag unprotected", [t.name for t in project.protectedtags.list()] == ["release-*"])

done()
