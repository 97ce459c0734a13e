# Conformance: the ruby `gitlab` gem's deployments, environments and templates, and the dependency list through its
# raw `get`, against the licensed sandbox seeded by test/conformance/deployments-templates.test.ts.
# The gem can only list and read deployments, so they come from the fixture.
# Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN (a Developer of acme/api), REPORTER_TOKEN, SHA.
# Prints one line per check; exits 1 on the first failure.
require_relative "ruby_harness"

SHA = ENV.fetch("SHA")
admin = client(ENV.fetch("ADMIN_TOKEN"))
user = client(ENV.fetch("USER_TOKEN"))
reporter = client(ENV.fetch("REPORTER_TOKEN"))

deployments = reporter.deployments("acme/api")
check("list deployments", deployments.map(&:iid) == [1, 2, 3], deployments.map(&:iid).inspect)
prod = deployments.first
check("environment and deployable", prod.environment.name == "production" && prod.deployable.name == "deploy" &&
                                     prod.deployable.pipeline.sha == SHA)
desc = reporter.deployments("acme/api", order_by: "iid", sort: "desc")
check("order_by and sort (query strings)", desc.map(&:iid) == [3, 2, 1])
check("filter by environment", reporter.deployments("acme/api", environment: "staging").map(&:iid) == [2])
check("filter by status", reporter.deployments("acme/api", status: "created").map(&:ref) == ["feature-x"])
page = reporter.deployments("acme/api", per_page: 2)
check("paginated", page.size == 2 && page.has_next_page? && page.auto_paginate.size == 3)
one = reporter.deployment("acme/api", deployments[1].id)
check("get one", one.iid == 2 && one.status == "success" && one.deployable.nil? && one.user.username == "root")
raises("a missing deployment is a 404", Gitlab::Error::NotFound, 404) { reporter.deployment("acme/api", 999_999) }
raises("invalid status filter is a 400", Gitlab::Error::BadRequest, 400) { reporter.deployments("acme/api", status: "done") }
raises("no access is a 404", Gitlab::Error::NotFound, 404) do
  client(ENV.fetch("OUTSIDER_TOKEN")).deployments("acme/api")
end

mrs = reporter.get("/projects/#{reporter.url_encode('acme/api')}/deployments/#{prod.id}/merge_requests", query: { state: "merged" })
check("merge requests of a deployment (raw get)", mrs.map(&:title) == ["Add sign-in"], mrs.inspect)

envs = reporter.environments("acme/api")
check("environments", envs.map(&:name) == ["production", "staging", "review/feature-x"], envs.map(&:name).inspect)
check("environment search", reporter.environments("acme/api", search: "stag").map(&:name) == ["staging"])

check("dockerfile templates", admin.dockerfile_templates.map(&:key).include?("Ruby"))
check("a dockerfile template", admin.dockerfile_template("Ruby").content.include?("FROM ruby"))
check("gitignore templates", admin.gitignore_templates.map(&:name).first == "Go")
check("a gitignore template", admin.gitignore_template("Node").content.include?("node_modules/"))
check("CI templates", admin.gitlab_ci_yml_templates.map(&:key).include?("Ruby"))
check("a CI template", admin.gitlab_ci_yml_template("Ruby").content.include?("image: ruby"))
popular = admin.license_templates(popular: true)
check("popular license templates", popular.map(&:key) == ["apache-2.0", "mit"])
mit = admin.license_template("mit", fullname: "Ruby Gem", project: "gem")
check("a license with the full name", mit.content.include?("Copyright (c) 2023 Ruby Gem") && mit.popular == true)
apache = user.license_template("apache-2.0")
check("the caller's name fills [name of copyright owner]", apache.content.include?("Copyright 2023 #{user.user.name}"))
raises("a missing template is a 404", Gitlab::Error::NotFound, 404) { admin.gitignore_template("Cobol") }
project_templates = reporter.get("/projects/#{reporter.url_encode('acme/api')}/templates/gitignores")
check("project templates (raw get)", project_templates.map(&:key).include?("macOS"))

deps = user.get("/projects/#{user.url_encode('acme/api')}/dependencies", query: { package_manager: "npm,yarn" })
check("dependencies, comma-joined filter", deps.map(&:name) == %w[express minimist], deps.inspect)
check("vulnerabilities for a Developer", deps[1].vulnerabilities.map(&:severity) == ["critical"])
plain = reporter.get("/projects/#{reporter.url_encode('acme/api')}/dependencies")
check("none for a Reporter", plain.size == 3 && plain.none? { |d| d.to_h.key?("vulnerabilities") })
raises("unknown package manager is a 400", Gitlab::Error::BadRequest, 400) do
  user.get("/projects/#{user.url_encode('acme/api')}/dependencies", query: { package_manager: "cargo" })
end
done
