"""Conformance: python-gitlab's project wiki manager and wiki attachment upload against the sandbox.

Run with /usr/bin/python3 against a sandbox seeded with test/conformance/more-areas.test.ts's fixture.
Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import re

import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


project = admin.projects.get("acme/api")

pages = project.wikis.list()
check("list seeded pages", [(p.slug, p.title) for p in pages] == [("Home", "Home")], str([p.attributes for p in pages]))
check("list without content", not hasattr(pages[0], "content") or "content" not in pages[0].attributes)
full = project.wikis.list(with_content=True)
check("list with_content", full[0].content == "Welcome", str(full[0].attributes))

page = project.wikis.create({"title": "Getting Started", "content": "Step one", "format": "rdoc"})
check("create page", page.slug == "Getting-Started" and page.format == "rdoc" and page.content == "Step one", str(page.attributes))
nested = project.wikis.create({"title": "guides/Deploy Howto", "content": "ship it"})
check("create page in a directory", nested.slug == "guides/Deploy-Howto" and nested.title == "Deploy Howto")
got = project.wikis.get("guides/Deploy-Howto")
check("get a page in a directory (slug URL-encoded by the client)", got.content == "ship it")
e = raises("invalid format is 400", exc.GitlabCreateError, 400, lambda: project.wikis.create({"title": "x", "content": "y", "format": "html"}))
check("invalid format message", e.error_message == "format does not have a valid value", str(e.error_message))
raises("duplicate page is 400", exc.GitlabCreateError, 400, lambda: project.wikis.create({"title": "Home", "content": "again"}))

page = project.wikis.get("Getting-Started")
page.content = "Step two"
page.format = "markdown"
page.save()
again = project.wikis.get("Getting-Started")
check("save() updates content and format", again.content == "Step two" and again.format == "markdown", str(again.attributes))

result = admin.http_post(
    f"/projects/{project.id}/wikis/attachments",
    files={"file": ("diagram.png", b"\x89PNG\r\n\x1a\nbytes", "image/png")},
    post_data={"branch": "main"},
)
check(
    "wiki attachment upload",
    result["file_name"] == "diagram.png"
    and re.fullmatch(r"uploads/[0-9a-f]{32}/diagram\.png", result["file_path"]) is not None
    and result["branch"] == "main"
    and result["link"] == {"url": result["file_path"], "markdown": f"![diagram.png]({result['file_path']})"},
    str(result),
)

raises("a non-member cannot read the private wiki", exc.GitlabListError, 404, lambda: user.projects.get(project.id, lazy=True).wikis.list())

again.delete()
raises("deleted page is 404", exc.GitlabGetError, 404, lambda: project.wikis.get("Getting-Started"))
check("list after delete", sorted(p.slug for p in project.wikis.list()) == ["Home", "guides/Deploy-Howto"])

done()
