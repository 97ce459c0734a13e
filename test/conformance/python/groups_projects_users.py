"""Conformance: python-gitlab against the sandbox (run with /usr/bin/python3).

Groups, subgroups, projects, users, namespaces, members, pagination and errors. See harness.py.
"""

import io

import gitlab
import gitlab.exceptions as exc
from gitlab.v4.objects import GroupExport
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


admin.auth()
check("auth: /user is the administrator", admin.user.username == "root" and admin.user.is_admin)
check("version", admin.version()[0].startswith("13.12.0"))

# Groups CRUD
top = admin.groups.create({"name": "Py Top", "path": "py-top", "visibility": "internal"})
check("create group", top.full_path == "py-top" and top.visibility == "internal")
sub = admin.groups.create({"name": "Py Sub", "path": "py-sub", "parent_id": top.id})
check("create subgroup", sub.full_path == "py-top/py-sub" and sub.parent_id == top.id)
fetched = admin.groups.get("py-top/py-sub")
check("get by full path (encoded)", fetched.id == sub.id)
fetched.description = "from python"
fetched.request_access_enabled = False
fetched.save()
again = admin.groups.get(sub.id)
check("update with save()", again.description == "from python" and again.request_access_enabled is False)
e = raises("duplicate path is 400", exc.GitlabCreateError, 400, lambda: admin.groups.create({"name": "x", "path": "py-top"}))
check("duplicate message", "has already been taken" in str(e.error_message))
raises("missing group is 404", exc.GitlabGetError, 404, lambda: admin.groups.get("py-top/nope"))
raises("bad token is 401", exc.GitlabAuthenticationError, 401, lambda: gitlab.Gitlab(URL, private_token="bad").groups.list())
raises("private group hidden from a user", exc.GitlabGetError, 404, lambda: user.groups.get("py-top%2Fpy-sub".replace("%2F", "/")))
raises("guest cannot create", exc.GitlabAuthenticationError, 401, lambda: guest.groups.create({"name": "g", "path": "g"}))

# Pagination: 25 subgroups, walked with all=True and with an iterator
for i in range(25):
    admin.groups.create({"name": f"many {i:02d}", "path": f"many-{i:02d}", "parent_id": top.id})
every = top.subgroups.list(all=True, per_page=7)
check("list(all=True) follows every page", len([g for g in every if g.path.startswith("many-")]) == 25)
it = admin.groups.list(iterator=True, per_page=10, search="many")
names = [g.path for g in it]
check("iterator walks pages", len(names) == 25 and it.total == 25 and it.total_pages == 3)
page2 = admin.groups.list(page=2, per_page=10, search="many", order_by="path")
check("explicit page", [g.path for g in page2][0] == "many-10")

# Projects in the group
proj = admin.projects.create({"name": "py-app", "namespace_id": top.id, "visibility": "internal"})
check("create project", proj.path_with_namespace == "py-top/py-app")
listed = admin.groups.get(top.id).projects.list(all=True)
check("group projects", [p.path for p in listed] == ["py-app"])
check("get project by path", admin.projects.get("py-top/py-app").id == proj.id)
for i in range(4):
    admin.projects.create({"name": f"py-key-{i}", "namespace_id": top.id})
keyset = admin.projects.list(pagination="keyset", order_by="id", sort="asc", per_page=2, iterator=True)
check("keyset pagination via Link", len([p for p in keyset if p.path.startswith("py-key-")]) == 4)

# Members
someone = admin.users.create({"username": "py-member", "name": "Py Member", "email": "py@example.com", "password": "password123"})
member = top.members.create({"user_id": someone.id, "access_level": 30})
check("add member", member.access_level == 30)
raises("member exists is 409", exc.GitlabCreateError, 409, lambda: top.members.create({"user_id": someone.id, "access_level": 30}))
member.access_level = 40
member.save()
check("update member", top.members.get(someone.id).access_level == 40)

# Export and import
# The platform has no GET /groups/:id/export (python-gitlab's exports.get() is a 405 there too).
raises("no export status endpoint", exc.GitlabGetError, 405, lambda: top.exports.get())
raises("download before scheduling is 404", exc.GitlabGetError, 404, lambda: GroupExport(sub.exports, {}).download())
export = top.exports.create()
archive = export.download()
check("export download", isinstance(archive, bytes) and len(archive) > 0)
result = admin.groups.import_group(io.BytesIO(archive), path="py-imported", name="Py Imported")
check("import answers the imported group", result.get("full_path") == "py-imported" and result.get("name") == "Py Imported")
check("import created group", admin.groups.get("py-imported").visibility == "internal")

# Delete
proj.delete()
raises("deleted project is gone", exc.GitlabGetError, 404, lambda: admin.projects.get(proj.id))
admin.groups.delete(top.id)
raises("deleted group is gone", exc.GitlabGetError, 404, lambda: admin.groups.get(top.id))
raises("user may not delete an internal group they do not own", exc.GitlabDeleteError, 403, lambda: user.groups.delete("py-imported"))

done()
