# Conformance: the ruby `gitlab` gem against the sandbox.
# Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check; exits 1 on the first failure.
# The gem sends form-encoded bodies, so every value arrives as a string and must be coerced.
require_relative "ruby_harness"

admin = client(ENV.fetch("ADMIN_TOKEN"))
user = client(ENV.fetch("USER_TOKEN"))

check("current user", admin.user.username == "root")
check("version", admin.version.version.start_with?("13.12.0"))

top = admin.create_group("Rb Top", "rb-top", visibility: "internal", request_access_enabled: false,
                                              two_factor_grace_period: 24, lfs_enabled: true)
check("create group (form-encoded strings coerced)",
      top.full_path == "rb-top" && top.request_access_enabled == false && top.two_factor_grace_period == 24)
sub = admin.create_group("Rb Sub", "rb-sub", parent_id: top.id)
check("create subgroup", sub.full_path == "rb-top/rb-sub" && sub.parent_id == top.id)
check("get by full path", admin.group("rb-top/rb-sub").id == sub.id)
edited = admin.edit_group(sub.id, description: "from ruby", share_with_group_lock: true)
check("edit group", edited.description == "from ruby" && edited.share_with_group_lock == true)

e = raises("duplicate is 400", Gitlab::Error::BadRequest, 400) { admin.create_group("x", "rb-top") }
check("duplicate message", e.message.include?("has already been taken"))
raises("missing is 404", Gitlab::Error::NotFound, 404) { admin.group("rb-top/missing") }
raises("invisible to a regular user is 404", Gitlab::Error::NotFound, 404) { user.group("rb-top/rb-sub") }
raises("regular user cannot edit an internal group", Gitlab::Error::Forbidden, 403) { user.edit_group(top.id, description: "x") }
raises("bad token is 401", Gitlab::Error::Unauthorized, 401) do
  client("nope").groups
end
raises("invalid visibility is 400", Gitlab::Error::BadRequest, 400) { admin.create_group("v", "v", visibility: "secret") }

12.times { |i| admin.create_group("rb many #{i}", format("rb-many-%02d", i), parent_id: top.id) }
page = admin.group_subgroups(top.id, per_page: 5, order_by: "path")
check("first page", page.size == 5 && page.has_next_page?)
all = page.auto_paginate
check("auto_paginate follows Link rel=next", all.count { |g| g.path.start_with?("rb-many-") } == 12)
pages = 0
admin.group_subgroups(top.id, per_page: 5).each_page { pages += 1 }
check("each_page", pages == 3)

project = admin.create_project("rb-app", namespace_id: top.id, visibility: "private", issues_enabled: false)
check("create project", project.path_with_namespace == "rb-top/rb-app" && project.issues_enabled == false)
check("group projects", admin.group_projects(top.id).map(&:path) == ["rb-app"])

member = admin.create_user("rb-member@example.com", "password123", "rb-member", name: "Rb Member")
added = admin.add_group_member(top.id, member.id, 30)
check("add member (string access level)", added.access_level == 30)
raises("existing member is 409", Gitlab::Error::Conflict, 409) { admin.add_group_member(top.id, member.id, 30) }
check("member list", admin.group_members(top.id).map(&:username).include?("rb-member"))

admin.delete_group(top.id)
raises("deleted group is gone", Gitlab::Error::NotFound, 404) { admin.group(top.id) }
done
