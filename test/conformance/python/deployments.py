"""Conformance: python-gitlab's deployment, deployment merge request and environment managers against the licensed
sandbox seeded by test/conformance/deployments-templates.test.ts (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN (a Developer of acme/api), REPORTER_TOKEN, SHA. Prints one line per
check, "OK <n> checks" at the end, and exits 1 on the first mismatch.
"""

import os

import gitlab
import gitlab.exceptions as exc
from harness import URL, admin, check, done, raises, user

SHA = os.environ["SHA"]
reporter = gitlab.Gitlab(URL, private_token=os.environ["REPORTER_TOKEN"])

project = admin.projects.get("acme/api")
seeded = project.deployments.list(get_all=True)
check("list seeded deployments by id", [d.iid for d in seeded] == [1, 2, 3], str([d.iid for d in seeded]))
prod, staging, review = seeded
check("environment of a deployment", prod.environment["name"] == "production" and prod.environment["external_url"] == "https://acme.example/api")
check("a CI deployment carries its job", prod.deployable["name"] == "deploy" and prod.deployable["pipeline"]["sha"] == SHA, str(prod.deployable))
check("an API-style deployment has no deployable", staging.deployable is None)

newest_first = project.deployments.list(order_by="iid", sort="desc", get_all=True)
check("order_by iid, sort desc", [d.iid for d in newest_first] == [3, 2, 1])
check("filter by environment", [d.iid for d in project.deployments.list(environment="staging")] == [2])
check("filter by status", [d.iid for d in project.deployments.list(status="created")] == [3])
check(
    "filter by updated_after",
    [d.iid for d in project.deployments.list(updated_after="2023-05-02T00:00:00Z", get_all=True)] == [2, 3],
)
raises("an unknown status is a 400", exc.GitlabListError, 400, lambda: project.deployments.list(status="done"))

got = reporter.projects.get("acme/api", lazy=True).deployments.get(staging.id)
check("a Reporter gets one", got.iid == 2 and got.status == "success" and got.user["username"] == "root")
raises("a missing one is a 404", exc.GitlabGetError, 404, lambda: project.deployments.get(999999))

dev_project = user.projects.get("acme/api", lazy=True)
created = dev_project.deployments.create(
    {"environment": "qa", "sha": SHA, "ref": "main", "tag": False, "status": "running"}
)
check(
    "a Developer creates one (deployable null, a new environment)",
    created.iid == 4 and created.status == "running" and created.deployable is None and created.environment["name"] == "qa",
    str(created.attributes),
)
check("the environment came into being", "qa" in [e.name for e in project.environments.list(get_all=True)])
created.status = "success"
created.save()
check("update the status", created.status == "success")
check("and it stays updated", dev_project.deployments.get(created.id).status == "success")
created.status = "running"
e = raises("running only from created", exc.GitlabUpdateError, 400, created.save)
check("the state machine's message", e.error_message == {"status": ['cannot transition via "run"']}, str(e.error_message))
created.status = "canceled"
created.save()
check("success to canceled", created.status == "canceled")

raises(
    "created is not a status the API takes",
    exc.GitlabCreateError,
    400,
    lambda: dev_project.deployments.create({"environment": "qa", "sha": SHA, "ref": "main", "tag": False, "status": "created"}),
)
e = raises(
    "an unknown commit is a 400",
    exc.GitlabCreateError,
    400,
    lambda: dev_project.deployments.create({"environment": "qa", "sha": "nope", "ref": "main", "tag": False, "status": "success"}),
)
check("with the model's message", e.error_message == {"sha": ["The commit does not exist"]}, str(e.error_message))
raises(
    "a Reporter cannot deploy",
    exc.GitlabCreateError,
    403,
    lambda: reporter.projects.get("acme/api", lazy=True).deployments.create(
        {"environment": "qa", "sha": SHA, "ref": "main", "tag": False, "status": "success"}
    ),
)
raises(
    "a protected environment refuses a Developer",
    exc.GitlabCreateError,
    403,
    lambda: dev_project.deployments.create({"environment": "production", "sha": SHA, "ref": "main", "tag": True, "status": "success"}),
)
admin_deploy = project.deployments.create({"environment": "production", "sha": SHA, "ref": "v1.0.0", "tag": True, "status": "success"})
check("a Maintainer (here an administrator) deploys to it", admin_deploy.environment["name"] == "production" and admin_deploy.ref == "v1.0.0")
ci = project.deployments.get(prod.id)
ci.status = "failed"
e = raises("a CI deployment cannot be updated", exc.GitlabUpdateError, 403, ci.save)
check("with the reason", "can not be updated using the API" in str(e.error_message), str(e.error_message))

merge_requests = project.deployments.get(prod.id, lazy=True).mergerequests.list(get_all=True)
check("merge requests of a deployment", [m.iid for m in merge_requests] == [2, 1], str([m.iid for m in merge_requests]))
check("in the listing format", merge_requests[1].title == "Add sign-in" and merge_requests[1].state == "merged" and merge_requests[1].author["username"] == "dev")
merged = project.deployments.get(prod.id, lazy=True).mergerequests.list(state="opened")
check("with the listing's filters", [m.iid for m in merged] == [2])

envs = project.environments.list(get_all=True)
check("environments", [e.name for e in envs][:3] == ["production", "staging", "review/feature-x"], str([e.name for e in envs]))
check("environment search", [e.name for e in project.environments.list(search="rev")] == ["review/feature-x"])
done()
