"""Conformance: python-gitlab's variables managers, project.save() and project export/import against the sandbox.

Project variables (`project.variables`, with `filter[environment_scope]`), group variables (`group.variables`), the
instance variables manager (`gl.variables`), project settings saved with `project.save()` and their Owner-only parts,
and `project.exports` / `projects.import_project`. Environment: see harness.py, plus OWNER_TOKEN, MAINT_TOKEN and
DEV_TOKEN of the fixture's users (Owner, Maintainer and Developer of the group `acme`).
"""

import io
import os
import tarfile

import gitlab
import gitlab.exceptions as exc
from harness import URL, admin, check, done, raises

owner = gitlab.Gitlab(URL, private_token=os.environ["OWNER_TOKEN"])
maint = gitlab.Gitlab(URL, private_token=os.environ["MAINT_TOKEN"])
dev = gitlab.Gitlab(URL, private_token=os.environ["DEV_TOKEN"])

# Project variables, as the Maintainer
project = maint.projects.get("acme/api")
var = project.variables.create({"key": "DEPLOY_TOKEN", "value": "abc~def:ghi", "masked": True, "protected": True})
check("create a masked variable", var.key == "DEPLOY_TOKEN" and var.masked is True and var.environment_scope == "*")
project.variables.create({"key": "DEPLOY_TOKEN", "value": "prod-value", "environment_scope": "production"})
e = raises(
    "a masked value of 7 characters", exc.GitlabCreateError, 400,
    lambda: project.variables.create({"key": "SHORT", "value": "1234567", "masked": True}),
)
check("its message", e.error_message == {"value": ["is invalid"]}, str(e.error_message))
e = raises(
    "a key with a dash", exc.GitlabCreateError, 400,
    lambda: project.variables.create({"key": "MY-VAR", "value": "x"}),
)
check("its message", e.error_message == {"key": ["can contain only letters, digits and '_'."]}, str(e.error_message))
listed = project.variables.list(all=True)
check("list shows both scopes", sorted(v.environment_scope for v in listed) == ["*", "production"])
e = raises("a key in two scopes needs a filter", exc.GitlabGetError, 409, lambda: project.variables.get("DEPLOY_TOKEN"))
check("its message", "filter[environment_scope]" in str(e.error_message), str(e.error_message))
prod = project.variables.get("DEPLOY_TOKEN", filter={"environment_scope": "production"})
check("get with a filter", prod.value == "prod-value")
prod.value = "prod-changed"
prod.save(filter={"environment_scope": "production"})
again = project.variables.get("DEPLOY_TOKEN", filter={"environment_scope": "production"})
check("save() with a filter changed that one", again.value == "prod-changed")
star = project.variables.get("DEPLOY_TOKEN", filter={"environment_scope": "*"})
check("the other is untouched", star.value == "abc~def:ghi" and star.protected is True)
project.variables.delete("DEPLOY_TOKEN", filter={"environment_scope": "production"})
check("delete with a filter", [v.environment_scope for v in project.variables.list(all=True)] == ["*"])
single = project.variables.get("DEPLOY_TOKEN")
single.protected = False
single.save()
check("save() without a filter once one is left", project.variables.get("DEPLOY_TOKEN").protected is False)
raises("a Developer may not list", exc.GitlabListError, 403, lambda: dev.projects.get("acme/api", lazy=True).variables.list())
raises("a missing variable", exc.GitlabGetError, 404, lambda: project.variables.get("NOPE"))

# Group variables
group = maint.groups.get("acme")
gv = group.variables.create({"key": "REGISTRY", "value": "registry.example", "variable_type": "file"})
check("create a group variable", gv.variable_type == "file" and gv.value == "registry.example")
gv.value = "registry.example:5000"
gv.save()
check("save() a group variable", group.variables.get("REGISTRY").value == "registry.example:5000")
raises("a Developer may not read group variables", exc.GitlabListError, 403, lambda: dev.groups.get("acme", lazy=True).variables.list())
e = raises("a missing group variable", exc.GitlabGetError, 404, lambda: group.variables.get("NOPE"))
check("its message", e.error_message == "404 GroupVariable Not Found", str(e.error_message))
group.variables.delete("REGISTRY")
check("delete a group variable", group.variables.list() == [])

# Instance variables: the `variables` manager, administrators only
iv = admin.variables.create({"key": "GLOBAL", "value": "everywhere", "protected": True})
check("create an instance variable", iv.key == "GLOBAL" and iv.protected is True)
check("list instance variables", [v.key for v in admin.variables.list(all=True)] == ["GLOBAL"])
iv.value = "changed"
iv.save()
check("save() an instance variable", admin.variables.get("GLOBAL").value == "changed")
raises("a non-administrator", exc.GitlabListError, 403, lambda: maint.variables.list())
admin.variables.delete("GLOBAL")
check("delete an instance variable", admin.variables.list() == [])

# Project settings with project.save()
project = maint.projects.get("acme/api")
project.merge_method = "ff"
project.squash_option = "default_on"
project.only_allow_merge_if_all_discussions_are_resolved = True
project.build_timeout = 7200
project.ci_default_git_depth = 10
project.wiki_access_level = "disabled"
project.save()
saved = admin.projects.get("acme/api")
check(
    "settings saved",
    saved.merge_method == "ff" and saved.squash_option == "default_on" and saved.build_timeout == 7200
    and saved.ci_default_git_depth == 10 and saved.wiki_access_level == "disabled" and saved.wiki_enabled is False
    and saved.only_allow_merge_if_all_discussions_are_resolved is True,
)
project.build_timeout = 30
e = raises("a build timeout under 10 minutes", exc.GitlabUpdateError, 400, project.save)
check("its message", e.error_message == {"build_timeout": ["needs to be between 10 minutes and 1 month"]}, str(e.error_message))
project = maint.projects.get("acme/api")
project.visibility = "internal"
raises("a Maintainer may not change visibility", exc.GitlabUpdateError, 403, project.save)
project = maint.projects.get("acme/api")
project.merge_method = "squash"
e = raises("an unknown merge method", exc.GitlabUpdateError, 400, project.save)
check("its message", "merge_method does not have a valid value" in str(e.error_message), str(e.error_message))
raises("a Maintainer may not archive", exc.GitlabCreateError, 403, maint.projects.get("acme/api", lazy=True).archive)
project = owner.projects.get("acme/api")
project.visibility = "internal"
project.save()
check("the Owner changes visibility", admin.projects.get("acme/api").visibility == "internal")
raises("a Developer may not save settings", exc.GitlabUpdateError, 403, lambda: dev.projects.update("acme/api", {"merge_method": "merge"}))

# Export and import
export = maint.projects.get("acme/api", lazy=True).exports.create()
export.refresh()
check("export finished", export.export_status == "finished")
data = export.download()
with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
    names = sorted(m.name.lstrip("./") for m in tar.getmembers() if m.isfile())
check("the archive holds VERSION and project.json", names == ["GITLAB_REVISION", "GITLAB_VERSION", "VERSION", "project.json"], str(names))
result = maint.projects.import_project(io.BytesIO(data), path="api-copy", namespace="acme", override_params={"description": "copy"})
check("import answered", result["import_status"] == "finished" and result["path_with_namespace"] == "acme/api-copy", str(result))
status = maint.projects.get(result["id"], lazy=True).imports.get()
check("import status", status.import_status == "finished")
copy = admin.projects.get("acme/api-copy")
check("settings came along", copy.merge_method == "ff" and copy.build_timeout == 7200 and copy.description == "copy")
check("variables did not", copy.variables.list() == [])

done()
