"""Conformance: python-gitlab's project and group badge managers against the sandbox (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""


import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


group = admin.groups.create({"name": "Badged", "path": "badged", "visibility": "public"})
project = admin.projects.create(
    {"name": "web", "path": "web", "namespace_id": group.id, "visibility": "public", "initialize_with_readme": True}
)

gb = group.badges.create({"link_url": "https://ci.example/%{project_path}", "image_url": "https://ci.example/g.svg"})
check("group badge create", gb.kind == "group" and gb.id > 0, str(gb.attributes))

pb = project.badges.create(
    {
        "link_url": "https://ci.example/%{project_path}/-/pipelines?id=%{project_id}",
        "image_url": "https://ci.example/%{project_path}/badges/%{default_branch}/pipeline.svg",
        "name": "pipeline",
    }
)
check("project badge create", pb.kind == "project" and pb.name == "pipeline", str(pb.attributes))
check(
    "placeholders rendered",
    pb.rendered_link_url == f"https://ci.example/badged/web/-/pipelines?id={project.id}",
    pb.rendered_link_url,
)

badges = project.badges.list()
check("project list has the group badge too", sorted(b.kind for b in badges) == ["group", "project"], str(badges))
check("group list has only its own", [b.id for b in group.badges.list()] == [gb.id])

pb.link_url = "https://other.example/%{project_id}"
pb.save()
fetched = project.badges.get(pb.id)
check("update via save()", fetched.rendered_link_url == f"https://other.example/{project.id}", fetched.rendered_link_url)

rendered = project.badges.render(link_url="https://r.example/%{project_path}", image_url="https://r.example/i.svg")
check(
    "render",
    rendered["rendered_link_url"] == "https://r.example/badged/web" and rendered["image_url"] == "https://r.example/i.svg",
    str(rendered),
)
grendered = group.badges.render(link_url="https://r.example/%{project_id}", image_url="https://r.example/i.svg")
check("group render uses the group's project", grendered["rendered_link_url"] == f"https://r.example/{project.id}")

raises(
    "invalid URL is a 400",
    exc.GitlabCreateError,
    400,
    lambda: project.badges.create({"link_url": "ftp://x.example", "image_url": "https://x.example/i.svg"}),
)
e = raises("group badge cannot be deleted through the project", exc.GitlabDeleteError, 403, lambda: project.badges.delete(gb.id))
check("403 message", "Group endpoint" in str(e.error_message), str(e.error_message))

check("anonymous list of a public project", len(guest.projects.get(project.id, lazy=True).badges.list()) == 2)
raises(
    "a non-member cannot create",
    exc.GitlabCreateError,
    403,
    lambda: user.projects.get(project.id, lazy=True).badges.create(
        {"link_url": "https://x.example", "image_url": "https://x.example/i.svg"}
    ),
)

project.badges.delete(pb.id)
group.badges.delete(gb.id)
check("deleted", project.badges.list() == [])
raises("deleted badge: 404", exc.GitlabGetError, 404, lambda: project.badges.get(pb.id))

done()
