"""Conformance: python-gitlab's milestone, issue-statistics and epic-issue managers against the sandbox.

Run with /usr/bin/python3 against a sandbox seeded with test/conformance/more-areas.test.ts's fixture.
Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN, ALICE_TOKEN. Prints one line per check, "OK <n> checks" at the
end, and exits 1 on the first mismatch.
"""

import os

import gitlab
import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401

alice = gitlab.Gitlab(URL, private_token=os.environ["ALICE_TOKEN"])


project = admin.projects.get("acme/api")
group = admin.groups.get("acme")

# Project milestones
seeded = project.milestones.list(state="active")
check("list seeded active milestones", [m.title for m in seeded] == ["v1"], str([m.title for m in seeded]))
m = project.milestones.create({"title": "v2", "description": "second", "due_date": "2021-07-01", "start_date": "2021-06-01"})
check("create milestone", m.iid == 2 and m.state == "active" and m.project_id == project.id, str(m.attributes))
e = raises("duplicate title is 400", exc.GitlabCreateError, 400, lambda: project.milestones.create({"title": "v2"}))
check(
    "duplicate message is the Ruby inspect string",
    e.error_message == 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}',
    str(e.error_message),
)
got = project.milestones.get(m.id)
check("get milestone by id", got.title == "v2" and got.due_date == "2021-07-01")
got.description = "changed"
got.state_event = "close"
got.save()
again = project.milestones.get(m.id)
check("save() updates and closes", again.description == "changed" and again.state == "closed", str(again.attributes))
check("list state=closed", [x.title for x in project.milestones.list(state="closed")] == ["v2"])
check("list iids", [x.title for x in project.milestones.list(iids=[1])] == ["v1"])
check("list search", [x.title for x in project.milestones.list(search="CHANGED")] == ["v2"])
again.state_event = "activate"
again.save()
check("activate", project.milestones.get(m.id).state == "active")
v1 = project.milestones.list(search="v1")[0]
issues = v1.issues()
check("milestone issues", sorted(i.title for i in issues) == ["Login fails"], str([i.title for i in issues]))
check("milestone merge requests (none)", list(v1.merge_requests()) == [])
raises("a missing milestone is 404", exc.GitlabGetError, 404, lambda: project.milestones.get(99999))
raises("a non-member cannot see the private project's milestones", exc.GitlabListError, 404, lambda: user.projects.get(project.id, lazy=True).milestones.list())
m.delete()
raises("deleted milestone is gone", exc.GitlabGetError, 404, lambda: project.milestones.get(m.id))

# Promote
result = v1.promote()
check("promote answers with the group milestone", result.get("group_id") == group.id and result.get("title") == "v1", str(result))
check("promoted milestone is listed on the group", "v1" in [x.title for x in group.milestones.list()])
check("project no longer has it", [x.title for x in project.milestones.list()] == [])

# Group milestones
gm = group.milestones.create({"title": "Q3", "due_date": "2021-09-30"})
check("create group milestone", gm.group_id == group.id and gm.due_date == "2021-09-30", str(gm.attributes))
gm.title = "Q3-2021"
gm.save()
check("update group milestone", group.milestones.get(gm.id).title == "Q3-2021")
gm.delete()
check("delete group milestone", "Q3-2021" not in [x.title for x in group.milestones.list()])

# Issue statistics
stats = project.issues_statistics.get()
check("project issues statistics", stats.statistics["counts"] == {"all": 3, "closed": 1, "opened": 2}, str(stats.statistics))
check(
    "group statistics with labels",
    group.issues_statistics.get(labels="bug").statistics["counts"]["all"] == 2,
    str(group.issues_statistics.get(labels="bug").statistics),
)
check("statistics by iids (comma-separated)", project.issues_statistics.get(iids="1,2").statistics["counts"]["all"] == 2)
mine = alice.issues_statistics.get()
check("instance statistics default to created_by_me", mine.statistics["counts"]["all"] == 2, str(mine.statistics))
# alice is a Developer of acme/api and, through her SCIM identity, a Guest of acme (so she sees acme/sub/deep too).
check("instance statistics scope=all", alice.issues_statistics.get(scope="all").statistics["counts"]["all"] == 4)
raises("statistics need authentication", exc.GitlabAuthenticationError, 401, lambda: guest.issues_statistics.get())

# Epic issues
epic = group.epics.get(1)
check("get epic", epic.title == "Platform" and epic.group_id == group.id, str(epic.attributes))
links = epic.issues.list()
check("epic issues", [i.title for i in links] == ["Login fails", "Docs typo"], str([i.title for i in links]))
target = [i for i in admin.projects.get("acme/sub/deep").issues.list(all=True) if i.title == "Deep bug"]
check("project issues list (subgroup project)", len(target) == 1 and target[0].iid == 1)
created = epic.issues.create({"issue_id": target[0].id})
check("assign issue to epic", created.epic_issue_id == created.id and created.issue["title"] == "Deep bug", str(created.attributes))
raises("already assigned is 409", exc.GitlabCreateError, 409, lambda: epic.issues.create({"issue_id": target[0].id}))
order = epic.issues.list()
check("new link goes first", [i.title for i in order] == ["Deep bug", "Login fails", "Docs typo"])
deep = order[0]
deep.move_before_id = order[2].epic_issue_id
deep.save()
check("reorder with move_before_id", [i.title for i in epic.issues.list()] == ["Login fails", "Docs typo", "Deep bug"])
deep.delete()
check("remove from epic", [i.title for i in epic.issues.list()] == ["Login fails", "Docs typo"])

done()
