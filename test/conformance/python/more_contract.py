"""Conformance: python-gitlab's access request, snippet, job/artifact and event managers against the sandbox.

Run with /usr/bin/python3 (Debian's python3-gitlab). Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN, and
JOB_TOKEN (the token of the fixture's running job). The sandbox is started with the fixture in
test/conformance/more-contract.test.ts. Prints one line per check, "OK <n> checks" at the end, and exits 1 on the
first mismatch.
"""

import io
import os
import zipfile

import gitlab
import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user

me = user.http_get("/user")

# ---- access requests ----
group = admin.groups.get("acme")
project = admin.projects.get("acme/api")

user_group = user.groups.get(group.id, lazy=True)
ar = user_group.accessrequests.create({})
check("group access request: created for the caller", ar.id == me["id"] and ar.username == me["username"], str(ar.attributes))
check("group access request: requested_at", isinstance(ar.requested_at, str) and ar.requested_at.endswith("Z"))
raises("group access request: twice is 400", exc.GitlabCreateError, 400, lambda: user_group.accessrequests.create({}))
raises("a requester cannot list requests", exc.GitlabListError, 403, lambda: user_group.accessrequests.list())
listed = group.accessrequests.list()
check("group access requests: listed to the owner", [x.id for x in listed] == [me["id"]], str(listed))
listed[0].approve(access_level=gitlab.const.REPORTER_ACCESS)
check("approve: member with the given level", group.members.get(me["id"]).access_level == 20)
check("approve: request gone", group.accessrequests.list() == [])
raises(
    "a member cannot request access",
    exc.GitlabCreateError,
    403,
    lambda: user.projects.get(project.id, lazy=True).accessrequests.create({}),
)

other = admin.projects.create({"name": "solo", "path": "solo", "visibility": "public"})
user_other = user.projects.get(other.id, lazy=True)
user_other.accessrequests.create({})
pending = other.accessrequests.list()
check("project access request: listed", [x.username for x in pending] == [me["username"]])
pending[0].approve()
check("approve without a level: Developer (30)", other.members.get(me["id"]).access_level == 30)

third = admin.projects.create({"name": "deny", "path": "deny", "visibility": "public"})
user.projects.get(third.id, lazy=True).accessrequests.create({})
third.accessrequests.list()[0].delete()
check("deny: the request is removed", third.accessrequests.list() == [])
raises("deny: not a member", exc.GitlabGetError, 404, lambda: third.members.get(me["id"]))

# ---- snippets ----
s = user.snippets.create(
    {"title": "notes", "file_name": "notes.md", "content": "# hello\n", "visibility": "private", "description": "d"}
)
check("snippet create", s.id > 0 and s.title == "notes" and s.visibility == "private" and s.author["id"] == me["id"])
check("snippet content", s.content() == b"# hello\n")
check("snippet list: the caller's", [x.id for x in user.snippets.list()] == [s.id])
raises("private snippet hidden from guests", exc.GitlabGetError, 404, lambda: guest.snippets.get(s.id))
s.title = "renamed"
s.visibility = "public"
s.save()
check("snippet update via save()", user.snippets.get(s.id).title == "renamed")
check("public snippet readable by a guest", guest.snippets.get(s.id).title == "renamed")
check("public list", s.id in [x.id for x in admin.snippets.public()])
detail = admin.snippets.get(s.id).user_agent_detail()
check("user agent detail (admin)", "python-gitlab" in detail["user_agent"] and detail["spam_check_submitted"] is False, str(detail))
raises("user agent detail: not for users", exc.GitlabGetError, 403, lambda: user.snippets.get(s.id).user_agent_detail())
s.delete()
raises("deleted snippet is 404", exc.GitlabGetError, 404, lambda: user.snippets.get(s.id))
raises("delete of a missing snippet is 404", exc.GitlabDeleteError, 404, lambda: user.snippets.delete(s.id))

# ---- jobs and artifacts ----
jobs = project.jobs.list(all=True)
check("jobs: descending id", [j.id for j in jobs] == sorted([j.id for j in jobs], reverse=True) and len(jobs) == 4)
failed = project.jobs.list(scope="failed")
check("jobs: scope string", [j.name for j in failed] == ["test"])
several = project.jobs.list(scope=["failed", "running"])
check("jobs: scope array", sorted(j.status for j in several) == ["failed", "running"])
raises("jobs: invalid scope", exc.GitlabListError, 400, lambda: project.jobs.list(scope="bogus"))
build = min((j for j in jobs if j.name == "build"), key=lambda j: j.id)
check("job get", project.jobs.get(build.id).stage == "build" and build.ref == "main" and build.pipeline["status"] == "success")
pipeline_jobs = project.pipelines.get(build.pipeline["id"], lazy=True).jobs.list()
check("pipeline jobs", [j.name for j in pipeline_jobs] == ["build", "test"])
archive = zipfile.ZipFile(io.BytesIO(project.jobs.get(build.id, lazy=True).artifacts()))
check("artifacts: a real zip", archive.read("out/app.txt") == b"version 1\n" and archive.testzip() is None)
check("single artifact", project.jobs.get(build.id, lazy=True).artifact("out/app.txt") == b"version 1\n")
raises(
    "single artifact: missing file is 404",
    exc.GitlabGetError,
    404,
    lambda: project.jobs.get(build.id, lazy=True).artifact("out/none.txt"),
)
test_job = next(j for j in jobs if j.name == "test")
raises("artifacts: none is 404", exc.GitlabGetError, 404, lambda: project.jobs.get(test_job.id, lazy=True).artifacts())
by_ref = zipfile.ZipFile(io.BytesIO(project.artifacts.download(ref_name="main", job="build")))
check("download by ref: latest successful pipeline", by_ref.read("out/app.txt") == b"version 2\n")
raises("download by ref: unknown job", exc.GitlabGetError, 404, lambda: project.artifacts.download(ref_name="main", job="nope"))
job_client = gitlab.Gitlab(URL, job_token=os.environ["JOB_TOKEN"])
via_job_token = job_client.projects.get(project.id, lazy=True).jobs.get(build.id, lazy=True).artifacts()
check("job token accepted on artifacts", zipfile.ZipFile(io.BytesIO(via_job_token)).read("out/app.txt") == b"version 1\n")
raises("job token refused elsewhere", exc.GitlabAuthenticationError, 401, lambda: job_client.projects.get(project.id, lazy=True).jobs.list())

# ---- events ----
mine = user.events.list()
# "joined": approving the access request to the project "solo" above recorded the join
check(
    "events: the caller's, newest first",
    [e.action_name for e in mine] == ["joined", "commented on", "pushed to"],
    str([e.action_name for e in mine]),
)
check("events: action filter", [e.action_name for e in user.events.list(action="pushed")] == ["pushed to"])
check("events: target_type filter", [e.target_type for e in user.events.list(target_type="note")] == ["Note"])
check("events: sort asc", [e.action_name for e in user.events.list(sort="asc")] == ["pushed to", "commented on", "joined"])
check("events: after", [e.action_name for e in user.events.list(after="2023-02-01")] == ["joined", "commented on"])
check("events: joined the project", [e.project_id for e in user.events.list(action="joined")] == [other.id])
project_events = project.events.list()
check("project events", [e.author_username for e in project_events] == [me["username"]] * 2)
user_events = admin.users.get(me["id"], lazy=True).events.list(before="2023-02-01")
check("user events: before", [e.action_name for e in user_events] == ["pushed to"])
check("events older than 2 years are never returned", all(e.created_at >= "2021-06" for e in admin.events.list(scope="all")))
raises("events need authentication", exc.GitlabAuthenticationError, 401, lambda: guest.events.list())

done()
