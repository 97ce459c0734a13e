"""Conformance: python-gitlab's template managers (gl.licenses, gl.gitignores, gl.gitlabciymls, gl.dockerfiles: the
instance-level /templates routes) and the contract's project templates against the sandbox (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. The sandbox's clock is in 2023. Prints one line per check,
"OK <n> checks" at the end, and exits 1 on the first mismatch.
"""

import gitlab.exceptions as exc
from harness import admin, check, done, guest, raises, user

licenses = guest.licenses.list(get_all=True)
check("licenses", [lic.key for lic in licenses] == ["apache-2.0", "bsd-2-clause", "bsd-3-clause", "isc", "mit", "ncsa", "unlicense"])
check("popular licenses", [lic.key for lic in guest.licenses.list(popular=True)] == ["apache-2.0", "mit"])
mit = guest.licenses.get("mit", project="Rocket", fullname="Jane Doe")
check("a license with placeholders expanded", "Copyright (c) 2023 Jane Doe" in mit.content, mit.content[:80])
check("the License entity", mit.name == "MIT License" and mit.popular is True and mit.conditions == ["include-copyright"])
me = user.http_get("/user")
mine = user.licenses.get("bsd-3-clause")
check("the caller's name by default", f"Copyright (c) 2023, {me['name']}" in mine.content, mine.content[:80])
ncsa = guest.licenses.get("ncsa", project="Rocket", fullname="Jane Doe")
check("the project placeholder", "Developed by: Rocket" in ncsa.content)
raises("a missing license is a 404", exc.GitlabGetError, 404, lambda: guest.licenses.get("gpl-9.0"))

gitignores = guest.gitignores.list(get_all=True)
check("gitignores", [g.name for g in gitignores][-3:] == ["JetBrains", "VisualStudioCode", "macOS"], str([g.name for g in gitignores]))
ruby = guest.gitignores.get("Ruby")
check("a gitignore", ruby.name == "Ruby" and "/.bundle/" in ruby.content)
check("CI templates", "Nodejs" in [t.name for t in guest.gitlabciymls.list(get_all=True)])
check("a CI template", "image: node" in guest.gitlabciymls.get("Nodejs").content)
check("Dockerfiles", [d.name for d in guest.dockerfiles.list(get_all=True)] == ["Binary", "Golang", "Node", "Python", "Ruby"])
check("a Dockerfile", guest.dockerfiles.get("Golang").content.count("FROM ") == 2)
raises("a missing Dockerfile is a 404", exc.GitlabGetError, 404, lambda: guest.dockerfiles.get("Cobol"))

group = admin.groups.create({"name": "Tpl", "path": "tpl", "visibility": "public"})
project = admin.projects.create({"name": "site", "path": "site", "namespace_id": group.id, "visibility": "public"})
listed = guest.http_list(f"/projects/{project.id}/templates/licenses", get_all=True)
check("project templates: {key, name}", {"key": "mit", "name": "MIT License"} in listed, str(listed))
one = guest.http_get(f"/projects/{project.id}/templates/licenses/isc", query_data={"fullname": "Acme", "project": "Site"})
check("a project template, expanded", "Copyright (c) 2023, Acme" in one["content"])
docker = guest.http_get(f"/projects/{project.id}/templates/dockerfiles/Node")
check("a project Dockerfile", docker["name"] == "Node" and "FROM node" in docker["content"])
raises(
    "an unknown type is a 400",
    exc.GitlabHttpError,
    400,
    lambda: guest.http_get(f"/projects/{project.id}/templates/readmes"),
)
raises(
    "a missing template is a 404",
    exc.GitlabHttpError,
    404,
    lambda: guest.http_get(f"/projects/{project.id}/templates/gitignores/Cobol"),
)
done()
