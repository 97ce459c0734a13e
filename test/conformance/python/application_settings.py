"""Conformance: python-gitlab's application settings manager (gl.settings) against the sandbox
(run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""


import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


raises("guest cannot read settings", exc.GitlabAuthenticationError, 401, lambda: guest.settings.get())
raises("user cannot read settings", exc.GitlabGetError, 403, lambda: user.settings.get())

settings = admin.settings.get()
check(
    "defaults",
    settings.default_projects_limit == 100000
    and settings.default_branch_protection == 2
    and settings.default_project_visibility == "private"
    and settings.domain_whitelist is None
    and settings.restricted_visibility_levels == [],
    str({k: settings.attributes.get(k) for k in ["default_projects_limit", "default_branch_protection"]}),
)
check("write-only secrets are absent", "asset_proxy_secret_key" not in settings.attributes)
licensed = admin.version()[0].endswith("-ee")
check(
    "licensed-only settings exist only on the licensed edition",
    ("searchengine_url" in settings.attributes) == licensed
    and ("file_template_project_id" in settings.attributes) == licensed,
    f"licensed={licensed}",
)

settings.default_projects_limit = 42
settings.signup_enabled = False
settings.restricted_visibility_levels = ["public"]
settings.domain_denylist_enabled = True
settings.domain_denylist = ["spam.example", "*.junk.example"]
settings.default_group_visibility = "internal"
settings.save()
check("save returns the new values", settings.default_projects_limit == 42 and settings.signup_enabled is False)

fresh = admin.settings.get()
check(
    "saved values persist",
    fresh.default_projects_limit == 42
    and fresh.signup_enabled is False
    and fresh.restricted_visibility_levels == ["public"]
    and fresh.default_group_visibility == "internal",
    str(fresh.restricted_visibility_levels),
)
check(
    "array settings sent by the client arrive as lists (also under the contract's names)",
    fresh.domain_denylist == ["spam.example", "*.junk.example"]
    and fresh.domain_blacklist == ["spam.example", "*.junk.example"]
    and fresh.domain_blacklist_enabled is True,
    str(fresh.domain_denylist),
)

updated = admin.settings.update(new_data={"allow_local_requests_from_hooks_and_services": True})
check(
    "the deprecated hooks flag is rewritten",
    updated["allow_local_requests_from_web_hooks_and_services"] is True,
    str(updated.get("allow_local_requests_from_web_hooks_and_services")),
)

e = raises(
    "enabling the spam service without a key is 400",
    exc.GitlabUpdateError,
    400,
    lambda: admin.settings.update(new_data={"spam_service_enabled": True}),
)
check("the error names the missing setting", "spam_service_api_key is missing" in str(e.error_message), str(e.error_message))
e = raises(
    "an archive age under a day is 400",
    exc.GitlabUpdateError,
    400,
    lambda: admin.settings.update(new_data={"archive_builds_in_human_readable": "2 hours"}),
)
check("the archive error says at least 1 day", "must be at least 1 day" in str(e.error_message), str(e.error_message))
raises(
    "an invalid visibility is 400",
    exc.GitlabUpdateError,
    400,
    lambda: admin.settings.update(new_data={"default_project_visibility": "secret"}),
)
raises(
    "an empty update is 400",
    exc.GitlabHttpError,
    400,
    lambda: admin.http_put("/application/settings", post_data={}),
)

raises(
    "user cannot update settings",
    exc.GitlabUpdateError,
    403,
    lambda: user.settings.update(new_data={"default_projects_limit": 1}),
)
check("the user's update changed nothing", admin.settings.get().default_projects_limit == 42)

done()
