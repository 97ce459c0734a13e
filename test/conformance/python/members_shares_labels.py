"""Conformance: python-gitlab's member, share and label managers against the sandbox.

Run with /usr/bin/python3 against a sandbox seeded with test/conformance/members-labels.test.ts's fixture.
Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN, MAINT_TOKEN, GUEST_TOKEN. Prints one line per check, "OK <n> checks" at the
end, and exits 1 on the first mismatch.
"""

import os

import gitlab
import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user

maint = gitlab.Gitlab(URL, private_token=os.environ["MAINT_TOKEN"])


def uid(username):
    found = admin.users.list(username=username)
    check(f"GET /users?username={username} finds one user", len(found) == 1, str(found))
    return found[0].id


alice, bob, carol, me = uid("alice"), uid("bob"), uid("carol"), uid("sandbox-user")
check("the username lookup ignores case", [u.id for u in user.users.list(username="ALICE")] == [alice])

group = admin.groups.get("acme")
project = admin.projects.get("acme/api")

# Group members
m = group.members.create({"user_id": bob, "access_level": 30, "expires_at": "2031-01-31"})
check("add a group member", (m.username, m.access_level, m.expires_at, m.state) == ("bob", 30, "2031-01-31", "active"))
raises("adding again is 409", exc.GitlabCreateError, 409, lambda: group.members.create({"user_id": bob, "access_level": 30}))
e = raises("level 60 is 400", exc.GitlabCreateError, 400, lambda: group.members.create({"user_id": carol, "access_level": 60}))
check("the 400 names the field", e.error_message == {"access_level": ["is not included in the list"]}, str(e.error_message))
e = raises("an expiry in the past is 400", exc.GitlabCreateError, 400, lambda: group.members.create({"user_id": carol, "access_level": 30, "expires_at": "2001-01-01"}))
check("the expiry message", e.error_message == {"expires_at": ["cannot be a date in the past"]}, str(e.error_message))
raises("a Maintainer may not add to a group", exc.GitlabCreateError, 403, lambda: maint.groups.get("acme", lazy=True).members.create({"user_id": carol, "access_level": 10}))
got = group.members.get(bob)
got.access_level = 40
got.save()
check("save() changes the level", group.members.get(bob).access_level == 40)
raises("a missing member is 404", exc.GitlabGetError, 404, lambda: group.members.get(carol))
owners = [x for x in group.members.list(all=True) if x.access_level == 50]
check("the fixture's group has one owner", len(owners) == 1, str(owners))
last = owners[0]
last.access_level = 40
raises("the last owner cannot be demoted", exc.GitlabUpdateError, 403, last.save)
raises("the last owner cannot be removed", exc.GitlabDeleteError, 403, lambda: group.members.delete(last.id))

# Blocked users are listed as such
admin.users.get(bob).block()
check("a blocked member shows state blocked", group.members.get(bob).state == "blocked")
admin.users.get(bob).unblock()

# Inherited members
sub = admin.groups.get("acme/team")
inherited = {x.username: x.access_level for x in sub.members_all.list(all=True)}
check("members/all shows the parent's members", inherited.get("bob") == 40 and "alice" in inherited, str(inherited))
check("the direct list has none of them", sub.members.list(all=True) == [])
check("members/all/:user_id", sub.members_all.get(bob).access_level == 40)
e = raises("a lower level than inherited is 400", exc.GitlabCreateError, 400, lambda: sub.members.create({"user_id": bob, "access_level": 20}))
check("the inherited-level message", "inherited membership from group acme" in str(e.error_message), str(e.error_message))
group.members.delete(bob)
raises("removed", exc.GitlabGetError, 404, lambda: group.members.get(bob))

# Project members
pm = project.members.create({"user_id": bob, "access_level": 40})
check("add a project member", pm.access_level == 40)
raises("Owner (50) is not a project level", exc.GitlabCreateError, 400, lambda: project.members.create({"user_id": me, "access_level": 50}))
raises("a Developer may not add project members", exc.GitlabCreateError, 403, lambda: user.projects.get(project.id, lazy=True).members.create({"user_id": me, "access_level": 10}))
pm.delete()
raises("a guest cannot list members", exc.GitlabAuthenticationError, 401, lambda: guest.projects.get("open/site", lazy=True).members.list())

# Sharing a group with a group
other = admin.groups.get("partners")
group.share(other.id, 20, expires_at="2031-12-31")
shares = admin.groups.get("acme").shared_with_groups
check("GET /groups/:id lists the share", shares == [{"group_id": other.id, "group_name": "partners", "group_full_path": "partners", "group_access_level": 20, "expires_at": "2031-12-31"}], str(shares))
raises("sharing again is 409", exc.GitlabCreateError, 409, lambda: group.share(other.id, 30))
raises("a Maintainer may not share the group", exc.GitlabCreateError, 404, lambda: maint.groups.get("acme", lazy=True).share(other.id, 30))
group.unshare(other.id)
check("unshared", admin.groups.get("acme").shared_with_groups == [])
raises("unsharing again is 404", exc.GitlabDeleteError, 404, lambda: group.unshare(other.id))

# Sharing a project with a group
project.share(other.id, 30)
check("GET /projects/:id lists the share", [(s["group_full_path"], s["group_access_level"]) for s in admin.projects.get(project.id).shared_with_groups] == [("partners", 30)])
raises("Owner (50) is not a project share level", exc.GitlabCreateError, 400, lambda: project.share(other.id, 50))
raises("the project's own group is 409", exc.GitlabCreateError, 409, lambda: project.share(group.id, 30))
raises("a group the Maintainer is not in is 404", exc.GitlabCreateError, 404, lambda: maint.projects.get(project.id, lazy=True).share(other.id, 30))
project.unshare(other.id)
raises("a locked namespace refuses sharing", exc.GitlabCreateError, 400, lambda: admin.projects.get("locked/app").share(other.id, 30))

# Project labels
label = project.labels.create({"name": "bug", "color": "red", "description": "Broken", "priority": 1})
check("create a project label", (label.name, label.color, label.priority, label.is_project_label) == ("bug", "#FF0000", 1, True), str(label.attributes))
raises("a title a group above has is 409", exc.GitlabCreateError, 409, lambda: project.labels.create({"name": "org", "color": "#fff"}))
check("another case is another label", project.labels.create({"name": "Bug", "color": "#fff"}).name == "Bug")
e = raises("an invalid color is 400", exc.GitlabCreateError, 400, lambda: project.labels.create({"name": "x", "color": "blurple"}))
check("the color message", e.error_message == {"color": ["must be a valid color code"]}, str(e.error_message))
listed = project.labels.list(all=True)
check("the list has the group's label and sorts by title", [(x.name, x.is_project_label) for x in listed] == [("Bug", True), ("bug", True), ("org", False)], str([x.name for x in listed]))
check("include_ancestor_groups=false", [x.name for x in project.labels.list(all=True, include_ancestor_groups=False)] == ["Bug", "bug", "org"])
got = project.labels.get("bug")
got.new_name = "defect"
got.color = "#00ff00"
got.save()
check("save() renames and recolors (deprecated PUT)", project.labels.get("defect").color == "#00ff00")
defect = project.labels.get("defect")
defect.subscribe()
check("subscribe", defect.subscribed is True, str(defect.attributes))
raises("subscribing again is 304", exc.GitlabSubscribeError, 304, lambda: project.labels.get("defect").subscribe())
project.labels.get("defect").unsubscribe()
counted = {x.name: x.open_issues_count for x in project.labels.list(all=True, with_counts=True)}
check("with_counts counts the issues", counted.get("org") == 1, str(counted))
project.labels.delete("Bug")
project.labels.get("defect").delete()
check("deleted", [x.name for x in project.labels.list(all=True)] == ["org"])
raises("a missing label is 404", exc.GitlabGetError, 404, lambda: project.labels.get("nope"))
raises("a Guest may not create labels", exc.GitlabCreateError, 403, lambda: gitlab.Gitlab(URL, private_token=os.environ["GUEST_TOKEN"]).projects.get(project.id, lazy=True).labels.create({"name": "g", "color": "#fff"}))

# Group labels
gl = group.labels.create({"name": "triage", "color": "#abc"})
check("create a group label", (gl.name, gl.color, gl.text_color) == ("triage", "#abc", "#333333"), str(gl.attributes))
gl = group.labels.get("triage")
gl.description = "Needs a look"
gl.save()
check("save() a group label", group.labels.get("triage").description == "Needs a look")
check("a subgroup shows its parent's labels", sorted(x.name for x in sub.labels.list(all=True)) == ["org", "triage"])
check("only its own without ancestors", sub.labels.list(all=True, include_ancestor_groups=False) == [])
group.labels.delete("triage")
check("group label deleted", [x.name for x in group.labels.list(all=True)] == ["org"])

done()
