package main

import (
	"fmt"
	"time"

	gitlab "github.com/xanzy/go-gitlab"
)

// projectHooks drives /projects/:id/hooks: every switch go-gitlab sends, the write-only token, the branch filter,
// the refusals and the Maintainer requirement.
func projectHooks(j *judge) {
	h, resp, err := j.admin.Projects.AddProjectHook(app, &gitlab.AddProjectHookOptions{
		URL:                    gitlab.String("https://ci.example.com/go"),
		Token:                  gitlab.String("go-secret"),
		PushEventsBranchFilter: gitlab.String("release/*"),
		DeploymentEvents:       gitlab.Bool(true),
		ReleasesEvents:         gitlab.Bool(true),
		EnableSSLVerification:  gitlab.Bool(false),
	})
	j.status("add a project hook", created, resp, err)
	j.check("project hook fields", h.URL == "https://ci.example.com/go" && h.PushEvents && !h.IssuesEvents &&
		h.DeploymentEvents && h.ReleasesEvents && !h.EnableSSLVerification && h.PushEventsBranchFilter == "release/*" &&
		h.CreatedAt != nil, fmt.Sprintf("%+v", h))
	e, _, err := j.admin.Projects.EditProjectHook(app, h.ID, &gitlab.EditProjectHookOptions{
		URL: gitlab.String("https://ci.example.com/go2"), PipelineEvents: gitlab.Bool(true), PushEvents: gitlab.Bool(false),
	})
	j.must("edit a project hook", err)
	j.check("edited, the rest kept", e.URL == "https://ci.example.com/go2" && e.PipelineEvents && !e.PushEvents &&
		e.DeploymentEvents && e.PushEventsBranchFilter == "release/*", fmt.Sprintf("%+v", e))
	got, _, err := j.admin.Projects.GetProjectHook(app, h.ID)
	j.must("get a project hook", err)
	j.check("get", got.ID == h.ID && got.PipelineEvents, fmt.Sprintf("%+v", got))
	_, resp, err = j.admin.Projects.AddProjectHook(app, &gitlab.AddProjectHookOptions{URL: gitlab.String("ftp://x.example")})
	j.refused("a URL that is not http(s)", 422, "Invalid url given", resp, err)
	_, resp, err = j.admin.Projects.AddProjectHook(app, &gitlab.AddProjectHookOptions{
		URL: gitlab.String("https://ci.example.com/x"), PushEventsBranchFilter: gitlab.String("a b"),
	})
	j.refused("a branch filter that is no branch name", 422, "Invalid branch filter given", resp, err)
	_, resp, err = j.user.Projects.ListProjectHooks(app, nil)
	j.refused("a non-member may not list hooks", 403, "403 Forbidden", resp, err)
	list, _, err := j.admin.Projects.ListProjectHooks(app, nil)
	j.must("list project hooks", err)
	j.check("list", len(list) == 1 && list[0].ID == h.ID, len(list))
	resp, err = j.admin.Projects.DeleteProjectHook(app, h.ID)
	j.status("delete a project hook", 204, resp, err)
	_, resp, err = j.admin.Projects.GetProjectHook(app, h.ID)
	j.refused("deleted", 404, "404 Not found", resp, err)
}

// groupHooks drives /groups/:id/hooks [licensed] with its subgroup events and the Owner requirement.
func groupHooks(j *judge) {
	h, resp, err := j.admin.Groups.AddGroupHook("go-judge", &gitlab.AddGroupHookOptions{
		URL: gitlab.String("https://ci.example.com/group"), SubGroupEvents: gitlab.Bool(true),
		MergeRequestsEvents: gitlab.Bool(true), Token: gitlab.String("group-secret"),
	})
	j.status("add a group hook", created, resp, err)
	j.check("group hook fields", h.URL == "https://ci.example.com/group" && h.SubGroupEvents && h.MergeRequestsEvents &&
		h.PushEvents && h.GroupID > 0, fmt.Sprintf("%+v", h))
	e, _, err := j.admin.Groups.EditGroupHook("go-judge", h.ID, &gitlab.EditGroupHookOptions{
		URL: gitlab.String("https://ci.example.com/group"), SubGroupEvents: gitlab.Bool(false), JobEvents: gitlab.Bool(true),
	})
	j.must("edit a group hook", err)
	j.check("edited group hook", !e.SubGroupEvents && e.JobEvents && e.MergeRequestsEvents, fmt.Sprintf("%+v", e))
	_, resp, err = j.admin.Groups.AddGroupHook("go-judge", &gitlab.AddGroupHookOptions{URL: gitlab.String("http://localhost/x")})
	j.refused("a local URL", 422, "Invalid url given", resp, err)
	_, resp, err = j.user.Groups.ListGroupHooks("go-judge", nil)
	j.refused("a non-member may not list group hooks", 403, "403 Forbidden", resp, err)
	list, _, err := j.admin.Groups.ListGroupHooks("go-judge", nil)
	j.must("list group hooks", err)
	j.check("group hook list", len(list) == 1 && list[0].ID == h.ID, len(list))
	resp, err = j.admin.Groups.DeleteGroupHook("go-judge", h.ID)
	j.status("delete a group hook", 204, resp, err)
}

// protectedBranches drives /projects/:id/protected_branches: levels, wildcards, force push, code owners (PATCH).
func protectedBranches(j *judge) {
	noOne := gitlab.AccessLevel(gitlab.NoPermissions)
	dev := gitlab.AccessLevel(gitlab.DeveloperPermissions)
	b, resp, err := j.admin.ProtectedBranches.ProtectRepositoryBranches(app, &gitlab.ProtectRepositoryBranchesOptions{
		Name: gitlab.String("main"), PushAccessLevel: noOne, MergeAccessLevel: dev, AllowForcePush: gitlab.Bool(true),
	})
	j.status("protect a branch", created, resp, err)
	j.check("protected branch", b.Name == "main" && b.PushAccessLevels[0].AccessLevel == gitlab.NoPermissions &&
		b.PushAccessLevels[0].AccessLevelDescription == "No one" &&
		b.MergeAccessLevels[0].AccessLevelDescription == "Developers + Maintainers" &&
		b.UnprotectAccessLevels[0].AccessLevel == gitlab.MaintainerPermissions && b.AllowForcePush &&
		!b.CodeOwnerApprovalRequired, fmt.Sprintf("%+v", b))
	_, _, err = j.admin.ProtectedBranches.ProtectRepositoryBranches(app, &gitlab.ProtectRepositoryBranchesOptions{
		Name: gitlab.String("release/*"), AllowedToMerge: &[]*gitlab.BranchPermissionOptions{{AccessLevel: dev}},
	})
	j.must("protect a wildcard with an allowance", err)
	w, _, err := j.admin.ProtectedBranches.GetProtectedBranch(app, "release/*")
	j.must("get a wildcard with a slash", err)
	j.check("wildcard", w.Name == "release/*" && len(w.MergeAccessLevels) == 1 &&
		w.MergeAccessLevels[0].AccessLevel == gitlab.DeveloperPermissions &&
		w.PushAccessLevels[0].AccessLevel == gitlab.MaintainerPermissions, fmt.Sprintf("%+v", w))
	_, resp, err = j.admin.ProtectedBranches.ProtectRepositoryBranches(app, &gitlab.ProtectRepositoryBranchesOptions{
		Name: gitlab.String("main"),
	})
	j.refused("a name twice", 409, "Protected branch 'main' already exists", resp, err)
	_, resp, err = j.admin.ProtectedBranches.ProtectRepositoryBranches(app, &gitlab.ProtectRepositoryBranchesOptions{
		Name: gitlab.String("x"), PushAccessLevel: gitlab.AccessLevel(gitlab.AccessLevelValue(50)),
	})
	j.refused("an access level of 50", 400, "push_access_level does not have a valid value", resp, err)
	resp, err = j.admin.ProtectedBranches.RequireCodeOwnerApprovals(app, "main",
		&gitlab.RequireCodeOwnerApprovalsOptions{CodeOwnerApprovalRequired: gitlab.Bool(true)})
	j.status("require code owner approvals", 200, resp, err)
	m, _, err := j.admin.ProtectedBranches.GetProtectedBranch(app, "main")
	j.must("get a protected branch", err)
	j.check("code owner approval set, nothing else", m.CodeOwnerApprovalRequired && m.AllowForcePush &&
		m.PushAccessLevels[0].AccessLevel == gitlab.NoPermissions, fmt.Sprintf("%+v", m))
	_, resp, err = j.user.ProtectedBranches.ListProtectedBranches(app, nil)
	j.refused("a non-member may not list protected branches", 403, "403 Forbidden", resp, err)
	list, _, err := j.admin.ProtectedBranches.ListProtectedBranches(app, nil)
	j.must("list protected branches", err)
	j.check("protected branch list", len(list) == 2 && list[0].Name == "main" && list[1].Name == "release/*", len(list))
	resp, err = j.admin.ProtectedBranches.UnprotectRepositoryBranches(app, "release/*")
	j.status("unprotect a wildcard", 204, resp, err)
	_, resp, err = j.admin.ProtectedBranches.GetProtectedBranch(app, "release/*")
	j.refused("unprotected", 404, "404 Not found", resp, err)
}

// protectedTags drives /projects/:id/protected_tags.
func protectedTags(j *judge) {
	t, resp, err := j.admin.ProtectedTags.ProtectRepositoryTags(app, &gitlab.ProtectRepositoryTagsOptions{
		Name: gitlab.String("v*"), CreateAccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions),
	})
	j.status("protect a tag pattern", created, resp, err)
	j.check("protected tag", t.Name == "v*" && t.CreateAccessLevels[0].AccessLevel == gitlab.DeveloperPermissions &&
		t.CreateAccessLevels[0].AccessLevelDescription == "Developers + Maintainers", fmt.Sprintf("%+v", t))
	_, resp, err = j.admin.ProtectedTags.ProtectRepositoryTags(app, &gitlab.ProtectRepositoryTagsOptions{Name: gitlab.String("v*")})
	j.refused("a tag pattern twice", 409, "Protected tag 'v*' already exists", resp, err)
	got, _, err := j.admin.ProtectedTags.GetProtectedTag(app, "v*")
	j.must("get a protected tag", err)
	j.check("get tag", got.Name == "v*", got.Name)
	list, _, err := j.admin.ProtectedTags.ListProtectedTags(app, nil)
	j.must("list protected tags", err)
	j.check("tag list", len(list) == 1, len(list))
	resp, err = j.admin.ProtectedTags.UnprotectRepositoryTags(app, "v*")
	j.status("unprotect a tag", 204, resp, err)
}

// deployTokens drives the deploy tokens of a project, a group and the instance.
func deployTokens(j *judge) {
	expires := time.Date(2031, 3, 4, 0, 0, 0, 0, time.UTC)
	t, resp, err := j.admin.DeployTokens.CreateProjectDeployToken(app, &gitlab.CreateProjectDeployTokenOptions{
		Name: gitlab.String("ci"), Scopes: &[]string{"read_repository", "read_registry"}, ExpiresAt: &expires,
	})
	j.status("create a project deploy token", created, resp, err)
	j.check("project deploy token", t.Name == "ci" && len(t.Token) >= 20 &&
		t.Username == fmt.Sprintf("gitlab+deploy-token-%d", t.ID) && t.ExpiresAt != nil && t.ExpiresAt.Equal(expires) &&
		len(t.Scopes) == 2, fmt.Sprintf("%+v", t))
	_, resp, err = j.admin.DeployTokens.CreateProjectDeployToken(app, &gitlab.CreateProjectDeployTokenOptions{
		Name: gitlab.String("bad"), Scopes: &[]string{"api"},
	})
	j.refused("an unknown scope", 400, "scopes does not have a valid value", resp, err)
	_, resp, err = j.admin.DeployTokens.CreateProjectDeployToken(app, &gitlab.CreateProjectDeployTokenOptions{
		Name: gitlab.String("bad"), Scopes: &[]string{"read_registry"}, Username: gitlab.String("a b"),
	})
	j.refused("a username with a space", 400, "Username can contain only letters, digits", resp, err)
	list, _, err := j.admin.DeployTokens.ListProjectDeployTokens(app, nil)
	j.must("list project deploy tokens", err)
	j.check("listed without the token", len(list) == 1 && list[0].ID == t.ID && list[0].Token == "", fmt.Sprintf("%+v", list))
	g, resp, err := j.admin.DeployTokens.CreateGroupDeployToken("go-judge", &gitlab.CreateGroupDeployTokenOptions{
		Name: gitlab.String("group"), Scopes: &[]string{"read_package_registry"}, Username: gitlab.String("pkg-bot"),
	})
	j.status("create a group deploy token", created, resp, err)
	j.check("group deploy token", g.Username == "pkg-bot" && len(g.Token) >= 20 && g.ExpiresAt == nil, fmt.Sprintf("%+v", g))
	all, _, err := j.admin.DeployTokens.ListAllDeployTokens()
	j.must("list every deploy token", err)
	j.check("instance list", len(all) == 2, len(all))
	_, resp, err = j.user.DeployTokens.ListAllDeployTokens()
	j.refused("the instance list is for administrators", 403, "403 Forbidden", resp, err)
	_, resp, err = j.user.DeployTokens.ListProjectDeployTokens(app, nil)
	j.refused("a non-member may not list a project's tokens", 403, "403 Forbidden", resp, err)
	resp, err = j.admin.DeployTokens.DeleteProjectDeployToken(app, t.ID)
	j.status("delete a project deploy token", 204, resp, err)
	resp, err = j.admin.DeployTokens.DeleteGroupDeployToken("go-judge", g.ID)
	j.status("delete a group deploy token", 204, resp, err)
	resp, err = j.admin.DeployTokens.DeleteGroupDeployToken("go-judge", g.ID)
	j.refused("deleted", 404, "404 Not found", resp, err)
}
