package main

import (
	"fmt"
	"time"

	gitlab "github.com/xanzy/go-gitlab"
)

// The project the project areas work on, made by groupsAndProjects.
const app = "go-judge/apps/app"

func pipelineSchedules(j *judge) {
	s, resp, err := j.admin.PipelineSchedules.CreatePipelineSchedule(app, &gitlab.CreatePipelineScheduleOptions{
		Description: gitlab.String("nightly"), Ref: gitlab.String("main"), Cron: gitlab.String("0 2 * * *"),
		CronTimezone: gitlab.String("UTC"),
	})
	j.status("create a schedule", created, resp, err)
	j.check("schedule fields", s.Description == "nightly" && s.Cron == "0 2 * * *" && s.CronTimezone == "UTC" &&
		s.Active && s.NextRunAt != nil && s.NextRunAt.After(time.Now().Add(-time.Minute)) && s.Owner != nil &&
		s.Owner.Username == "root", fmt.Sprintf("%+v", s))
	_, resp, err = j.admin.PipelineSchedules.CreatePipelineSchedule(app, &gitlab.CreatePipelineScheduleOptions{
		Description: gitlab.String("bad"), Ref: gitlab.String("main"), Cron: gitlab.String("not cron"),
	})
	j.refused("an invalid cron", 400, `"cron":[" is invalid syntax"]`, resp, err)
	_, resp, err = j.admin.PipelineSchedules.CreatePipelineSchedule(app, &gitlab.CreatePipelineScheduleOptions{
		Ref: gitlab.String("main"), Cron: gitlab.String("0 2 * * *"),
	})
	j.refused("a schedule without a description", 400, `{"message":{"description":["can't be blank"]}}`, resp, err)

	v, resp, err := j.admin.PipelineSchedules.CreatePipelineScheduleVariable(app, s.ID,
		&gitlab.CreatePipelineScheduleVariableOptions{Key: gitlab.String("DEPLOY_ENV"), Value: gitlab.String("prod")})
	j.status("create a variable", created, resp, err)
	j.check("variable defaults to env_var", v.Key == "DEPLOY_ENV" && v.Value == "prod" && v.VariableType == "env_var",
		fmt.Sprintf("%+v", v))
	_, _, err = j.admin.PipelineSchedules.CreatePipelineScheduleVariable(app, s.ID,
		&gitlab.CreatePipelineScheduleVariableOptions{
			Key: gitlab.String("CONFIG"), Value: gitlab.String("a: 1"), VariableType: gitlab.String("file"),
		})
	j.must("create a file variable", err)
	_, resp, err = j.admin.PipelineSchedules.CreatePipelineScheduleVariable(app, s.ID,
		&gitlab.CreatePipelineScheduleVariableOptions{Key: gitlab.String("BAD-KEY"), Value: gitlab.String("x")})
	j.refused("a key with a dash", 400, "can contain only letters, digits and '_'.", resp, err)
	_, resp, err = j.admin.PipelineSchedules.CreatePipelineScheduleVariable(app, s.ID,
		&gitlab.CreatePipelineScheduleVariableOptions{Key: gitlab.String("DEPLOY_ENV"), Value: gitlab.String("x")})
	j.refused("a key twice", 400, "has already been taken", resp, err)
	ev, _, err := j.admin.PipelineSchedules.EditPipelineScheduleVariable(app, s.ID, "DEPLOY_ENV",
		&gitlab.EditPipelineScheduleVariableOptions{Value: gitlab.String("staging")})
	j.must("edit a variable", err)
	j.check("edited variable", ev.Value == "staging", ev.Value)
	_, resp, err = j.admin.PipelineSchedules.EditPipelineScheduleVariable(app, s.ID, "NOPE",
		&gitlab.EditPipelineScheduleVariableOptions{Value: gitlab.String("x")})
	j.refused("edit a missing variable", 404, "404 Pipeline Schedule Variable Not Found", resp, err)

	full, _, err := j.admin.PipelineSchedules.GetPipelineSchedule(app, s.ID)
	j.must("get a schedule", err)
	j.check("schedule with its variables", len(full.Variables) == 2 && full.Variables[0].Key == "DEPLOY_ENV" &&
		full.Variables[1].VariableType == "file" && full.LastPipeline.ID == 0, fmt.Sprintf("%+v", full.Variables))

	edited, _, err := j.admin.PipelineSchedules.EditPipelineSchedule(app, s.ID, &gitlab.EditPipelineScheduleOptions{
		Cron: gitlab.String("30 4 * * 1"), CronTimezone: gitlab.String("Europe/Berlin"), Active: gitlab.Bool(false),
	})
	j.must("edit a schedule", err)
	j.check("edited schedule", edited.Cron == "30 4 * * 1" && edited.CronTimezone == "Europe/Berlin" && !edited.Active,
		fmt.Sprintf("%+v", edited))
	list, _, err := j.admin.PipelineSchedules.ListPipelineSchedules(app, nil)
	j.must("list schedules", err)
	j.check("list", len(list) == 1 && list[0].ID == s.ID && list[0].Variables == nil, len(list))

	deleted, resp, err := j.admin.PipelineSchedules.DeletePipelineScheduleVariable(app, s.ID, "CONFIG")
	j.status("delete a variable", 202, resp, err)
	j.check("the deleted variable is returned", deleted.Key == "CONFIG" && deleted.Value == "a: 1", fmt.Sprintf("%+v", deleted))
	_, resp, err = j.user.PipelineSchedules.ListPipelineSchedules(app, nil)
	j.refused("a non-member of an internal project may not read them", 403, "403 Forbidden", resp, err)
	_, resp, err = j.guest.PipelineSchedules.ListPipelineSchedules(app, nil)
	j.refused("a guest must sign in", 401, "401 Unauthorized", resp, err)
	_, resp, err = j.admin.PipelineSchedules.GetPipelineSchedule(app, 99999)
	j.refused("a missing schedule", 404, "404 Pipeline Schedule Not Found", resp, err)
	resp, err = j.admin.PipelineSchedules.DeletePipelineSchedule(app, s.ID)
	j.must("delete a schedule", err)
	j.check("deleted", resp.StatusCode == 204 || resp.StatusCode == 200, resp.StatusCode)
}

func pipelineTriggers(j *judge) {
	t, resp, err := j.admin.PipelineTriggers.AddPipelineTrigger(app, &gitlab.AddPipelineTriggerOptions{
		Description: gitlab.String("deploy"),
	})
	j.status("create a trigger", created, resp, err)
	j.check("trigger fields", t.Description == "deploy" && len(t.Token) == 30 && t.Owner != nil &&
		t.Owner.Username == "root" && t.LastUsed == nil && t.CreatedAt != nil, fmt.Sprintf("%+v", t))
	_, resp, err = j.admin.PipelineTriggers.AddPipelineTrigger(app, &gitlab.AddPipelineTriggerOptions{})
	j.refused("a trigger without a description", 400, "description is missing", resp, err)
	e, _, err := j.admin.PipelineTriggers.EditPipelineTrigger(app, t.ID, &gitlab.EditPipelineTriggerOptions{
		Description: gitlab.String("deploy v2"),
	})
	j.must("edit a trigger", err)
	j.check("edited trigger", e.Description == "deploy v2" && e.Token == t.Token, e.Description)
	got, _, err := j.admin.PipelineTriggers.GetPipelineTrigger(app, t.ID)
	j.must("get a trigger", err)
	j.check("get", got.ID == t.ID && got.Description == "deploy v2", got.ID)
	list, _, err := j.admin.PipelineTriggers.ListPipelineTriggers(app, nil)
	j.must("list triggers", err)
	j.check("list", len(list) == 1 && list[0].ID == t.ID, len(list))
	_, resp, err = j.admin.PipelineTriggers.GetPipelineTrigger(app, 99999)
	j.refused("a missing trigger", 404, "404 Not found", resp, err)
	resp, err = j.admin.PipelineTriggers.DeletePipelineTrigger(app, t.ID)
	j.status("delete a trigger", 204, resp, err)
	_, resp, err = j.admin.PipelineTriggers.GetPipelineTrigger(app, t.ID)
	j.refused("deleted", 404, "404 Not found", resp, err)
}

func badges(j *judge) {
	p, _, err := j.admin.Projects.GetProject(app, nil)
	j.must("get the project", err)
	b, resp, err := j.admin.ProjectBadges.AddProjectBadge(app, &gitlab.AddProjectBadgeOptions{
		LinkURL:  gitlab.String("https://ci.example/%{project_path}/-/pipelines?id=%{project_id}"),
		ImageURL: gitlab.String("https://ci.example/%{default_branch}.svg"),
		Name:     gitlab.String("pipeline"),
	})
	j.status("add a project badge", created, resp, err)
	j.check("rendered placeholders", b.Kind == "project" && b.Name == "pipeline" &&
		b.RenderedLinkURL == fmt.Sprintf("https://ci.example/%s/-/pipelines?id=%d", app, p.ID) &&
		b.RenderedImageURL == "https://ci.example/main.svg", fmt.Sprintf("%+v", b))
	_, resp, err = j.admin.ProjectBadges.AddProjectBadge(app, &gitlab.AddProjectBadgeOptions{
		LinkURL: gitlab.String("ftp://x.example"), ImageURL: gitlab.String("https://x.example/i.svg"),
	})
	j.refused("a link that is not http(s)", 400, "link_url", resp, err)
	gb, _, err := j.admin.GroupBadges.AddGroupBadge("go-judge/apps", &gitlab.AddGroupBadgeOptions{
		LinkURL: gitlab.String("https://g.example"), ImageURL: gitlab.String("https://g.example/i.svg"),
	})
	j.must("add a group badge", err)
	j.check("group badge kind", gb.Kind == gitlab.GroupBadgeKind, gb.Kind)
	list, _, err := j.admin.ProjectBadges.ListProjectBadges(app, nil)
	j.must("list the project's badges", err)
	kinds := map[string]int{}
	for _, x := range list {
		kinds[x.Kind]++
	}
	// Its own, and those of both groups above it (go-judge's comes from the export area).
	j.check("the project lists its groups' badges too", len(list) == 3 && kinds["project"] == 1 && kinds["group"] == 2,
		kinds)
	edited, _, err := j.admin.ProjectBadges.EditProjectBadge(app, b.ID, &gitlab.EditProjectBadgeOptions{
		LinkURL: gitlab.String("https://other.example/%{project_id}"),
	})
	j.must("edit a badge", err)
	j.check("edited badge", edited.RenderedLinkURL == fmt.Sprintf("https://other.example/%d", p.ID), edited.RenderedLinkURL)
	pre, _, err := j.admin.ProjectBadges.PreviewProjectBadge(app, &gitlab.ProjectBadgePreviewOptions{
		LinkURL: gitlab.String("https://r.example/%{project_path}"), ImageURL: gitlab.String("https://r.example/i.svg"),
	})
	j.must("preview a badge", err)
	j.check("preview", pre.RenderedLinkURL == "https://r.example/"+app && pre.Kind == "", fmt.Sprintf("%+v", pre))
	_, resp, err = j.guest.ProjectBadges.PreviewProjectBadge(app, &gitlab.ProjectBadgePreviewOptions{
		LinkURL: gitlab.String("https://r.example"), ImageURL: gitlab.String("https://r.example/i.svg"),
	})
	j.refused("a preview on an invisible project is 404 for a guest", 404, "404 Project Not Found", resp, err)
	resp, err = j.admin.ProjectBadges.DeleteProjectBadge(app, gb.ID)
	j.refused("a group badge is not deleted through a project", 403, "To delete a Group badge please use the Group endpoint", resp, err)
	resp, err = j.admin.ProjectBadges.DeleteProjectBadge(app, b.ID)
	j.status("delete a project badge", 204, resp, err)
	_, resp, err = j.admin.ProjectBadges.GetProjectBadge(app, b.ID)
	j.refused("deleted", 404, "404 Not found", resp, err)
}

func protectedEnvironments(j *judge) {
	maint := gitlab.AccessLevel(gitlab.MaintainerPermissions)
	env, resp, err := j.admin.ProtectedEnvironments.ProtectRepositoryEnvironments(app,
		&gitlab.ProtectRepositoryEnvironmentsOptions{
			Name:               gitlab.String("production"),
			DeployAccessLevels: &[]*gitlab.EnvironmentAccessOptions{{AccessLevel: maint}},
		})
	j.status("protect an environment", created, resp, err)
	j.check("protected environment", env.Name == "production" && len(env.DeployAccessLevels) == 1 &&
		env.DeployAccessLevels[0].AccessLevel == gitlab.MaintainerPermissions &&
		env.DeployAccessLevels[0].AccessLevelDescription == "Maintainers", fmt.Sprintf("%+v", env.DeployAccessLevels))
	_, _, err = j.admin.ProtectedEnvironments.ProtectRepositoryEnvironments(app,
		&gitlab.ProtectRepositoryEnvironmentsOptions{
			Name:               gitlab.String("review/app"),
			DeployAccessLevels: &[]*gitlab.EnvironmentAccessOptions{{AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions)}},
		})
	j.must("protect a name with a slash", err)
	_, resp, err = j.admin.ProtectedEnvironments.ProtectRepositoryEnvironments(app,
		&gitlab.ProtectRepositoryEnvironmentsOptions{
			Name:               gitlab.String("production"),
			DeployAccessLevels: &[]*gitlab.EnvironmentAccessOptions{{AccessLevel: maint}},
		})
	j.refused("a name twice", 409, "Protected environment 'production' already exists", resp, err)
	list, _, err := j.admin.ProtectedEnvironments.ListProtectedEnvironments(app, nil)
	j.must("list protected environments", err)
	j.check("sorted by name", len(list) == 2 && list[0].Name == "production" && list[1].Name == "review/app", len(list))
	got, _, err := j.admin.ProtectedEnvironments.GetProtectedEnvironment(app, "review/app")
	j.must("get a name with a slash", err)
	j.check("get", got.Name == "review/app" && got.DeployAccessLevels[0].AccessLevel == gitlab.DeveloperPermissions, got.Name)
	_, resp, err = j.admin.ProtectedEnvironments.GetProtectedEnvironment(app, "staging")
	j.refused("an unprotected name", 404, "404 Not found", resp, err)
	resp, err = j.admin.ProtectedEnvironments.UnprotectEnvironment(app, "review/app")
	j.status("unprotect", 204, resp, err)
}

const deployKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGM2suMDoH2TlIRFZjhUh09BCWBsYM5t5qrNcp2+Oz9R go@judge"

func deployKeys(j *judge) {
	k, resp, err := j.admin.DeployKeys.AddDeployKey(app, &gitlab.AddDeployKeyOptions{
		Title: gitlab.String("ci"), Key: gitlab.String(deployKey), CanPush: gitlab.Bool(true),
	})
	j.status("add a deploy key", created, resp, err)
	j.check("deploy key", k.Title == "ci" && k.CanPush && k.Key == deployKey && k.CreatedAt != nil, fmt.Sprintf("%+v", k))
	again, resp, err := j.admin.DeployKeys.AddDeployKey(app, &gitlab.AddDeployKeyOptions{
		Title: gitlab.String("renamed"), Key: gitlab.String(deployKey),
	})
	j.status("adding the same key again", created, resp, err)
	j.check("returns the existing key unchanged", again.ID == k.ID && again.Title == "ci", again.Title)
	_, resp, err = j.admin.DeployKeys.AddDeployKey(app, &gitlab.AddDeployKeyOptions{
		Title: gitlab.String("bad"), Key: gitlab.String("not a key"),
	})
	j.refused("an invalid key", 400, "is invalid", resp, err)
	u, _, err := j.admin.DeployKeys.UpdateDeployKey(app, k.ID, &gitlab.UpdateDeployKeyOptions{CanPush: gitlab.Bool(false)})
	j.must("update a deploy key", err)
	j.check("updated", !u.CanPush && u.Title == "ci", fmt.Sprintf("%+v", u))
	_, resp, err = j.admin.DeployKeys.UpdateDeployKey(app, k.ID, &gitlab.UpdateDeployKeyOptions{})
	j.refused("an update without fields", 400, "title, can_push are missing, at least one parameter must be provided", resp, err)
	all, _, err := j.admin.DeployKeys.ListAllDeployKeys(nil)
	j.must("list the instance's deploy keys", err)
	j.check("instance list", len(all) == 1 && all[0].ID == k.ID, len(all))
	_, resp, err = j.user.DeployKeys.ListAllDeployKeys(nil)
	j.refused("the instance list is for administrators", 403, "403 Forbidden", resp, err)
	list, _, err := j.admin.DeployKeys.ListProjectDeployKeys(app, nil)
	j.must("list a project's deploy keys", err)
	j.check("project list", len(list) == 1 && list[0].ID == k.ID, len(list))
	resp, err = j.admin.DeployKeys.DeleteDeployKey(app, k.ID)
	j.status("delete a deploy key", 204, resp, err)
	_, resp, err = j.admin.DeployKeys.GetDeployKey(app, k.ID)
	j.refused("deleted", 404, "404 Not found", resp, err)
}

func milestones(j *judge) {
	start := gitlab.ISOTime(time.Date(2021, 4, 1, 0, 0, 0, 0, time.UTC))
	due := gitlab.ISOTime(time.Date(2021, 5, 1, 0, 0, 0, 0, time.UTC))
	m, resp, err := j.admin.Milestones.CreateMilestone(app, &gitlab.CreateMilestoneOptions{
		Title: gitlab.String("v1"), Description: gitlab.String("first"), StartDate: &start, DueDate: &due,
	})
	j.status("create a milestone", created, resp, err)
	j.check("milestone fields", m.Title == "v1" && m.IID == 1 && m.State == "active" && m.DueDate != nil &&
		m.DueDate.String() == "2021-05-01" && m.StartDate.String() == "2021-04-01", fmt.Sprintf("%+v", m))
	_, resp, err = j.admin.Milestones.CreateMilestone(app, &gitlab.CreateMilestoneOptions{Title: gitlab.String("v1")})
	j.refused("a title twice", 400, "Failed to create milestone", resp, err)
	_, resp, err = j.admin.Milestones.CreateMilestone(app, &gitlab.CreateMilestoneOptions{
		Title: gitlab.String("backwards"), StartDate: &due, DueDate: &start,
	})
	j.refused("due before start", 400, "must be greater than start date", resp, err)
	closed, _, err := j.admin.Milestones.UpdateMilestone(app, m.ID, &gitlab.UpdateMilestoneOptions{
		StateEvent: gitlab.String("close"),
	})
	j.must("close a milestone", err)
	j.check("closed", closed.State == "closed", closed.State)
	_, _, err = j.admin.Milestones.CreateMilestone(app, &gitlab.CreateMilestoneOptions{Title: gitlab.String("v2")})
	j.must("create another", err)
	active, _, err := j.admin.Milestones.ListMilestones(app, &gitlab.ListMilestonesOptions{State: gitlab.String("active")})
	j.must("list active milestones", err)
	j.check("state filter", len(active) == 1 && active[0].Title == "v2", len(active))
	byIID, _, err := j.admin.Milestones.ListMilestones(app, &gitlab.ListMilestonesOptions{IIDs: &[]int{1}})
	j.must("list by iid", err)
	j.check("iids filter", len(byIID) == 1 && byIID[0].ID == m.ID, len(byIID))
	gm, _, err := j.admin.GroupMilestones.CreateGroupMilestone("go-judge/apps", &gitlab.CreateGroupMilestoneOptions{
		Title: gitlab.String("Q3"),
	})
	j.must("create a group milestone", err)
	j.check("group milestone", gm.GroupID != 0 && gm.Title == "Q3", fmt.Sprintf("%+v", gm))
	_, resp, err = j.admin.Milestones.CreateMilestone(app, &gitlab.CreateMilestoneOptions{Title: gitlab.String("Q3")})
	j.refused("a title the group uses", 400, "already being used for another group or project milestone.", resp, err)
	resp, err = j.admin.Milestones.DeleteMilestone(app, m.ID)
	j.status("delete a milestone", 204, resp, err)
	_, resp, err = j.admin.Milestones.GetMilestone(app, m.ID)
	j.refused("deleted", 404, "404 Not found", resp, err)
}

func wikis(j *judge) {
	w, resp, err := j.admin.Wikis.CreateWikiPage(app, &gitlab.CreateWikiPageOptions{
		Title: gitlab.String("Home"), Content: gitlab.String("Welcome"),
	})
	j.status("create a wiki page", created, resp, err)
	j.check("page", w.Slug == "Home" && w.Title == "Home" && w.Format == gitlab.WikiFormatMarkdown && w.Content == "Welcome",
		fmt.Sprintf("%+v", w))
	_, _, err = j.admin.Wikis.CreateWikiPage(app, &gitlab.CreateWikiPageOptions{
		Title: gitlab.String("docs/Setup Guide"), Content: gitlab.String("= Setup"), Format: gitlab.WikiFormat(gitlab.WikiFormatASCIIDoc),
	})
	j.must("create a page in a folder", err)
	got, _, err := j.admin.Wikis.GetWikiPage(app, "docs/Setup-Guide", nil)
	j.must("get a page in a folder", err)
	j.check("page in a folder", got.Format == gitlab.WikiFormatASCIIDoc && got.Content == "= Setup", fmt.Sprintf("%+v", got))
	list, resp, err := j.admin.Wikis.ListWikis(app, &gitlab.ListWikisOptions{WithContent: gitlab.Bool(true)})
	j.must("list pages", err)
	j.check("list with content, not paginated", len(list) == 2 && list[0].Content != "" && resp.Header.Get("X-Total") == "",
		len(list))
	e, _, err := j.admin.Wikis.EditWikiPage(app, "Home", &gitlab.EditWikiPageOptions{Content: gitlab.String("Hello")})
	j.must("edit a page", err)
	j.check("edited", e.Content == "Hello" && e.Slug == "Home", e.Content)
	_, resp, err = j.admin.Wikis.CreateWikiPage(app, &gitlab.CreateWikiPageOptions{Title: gitlab.String("No content")})
	j.refused("a page without content", 400, "content is missing", resp, err)
	_, resp, err = j.admin.Wikis.GetWikiPage(app, "nothing", nil)
	j.refused("a missing page", 404, "404 Wiki Page Not Found", resp, err)
	resp, err = j.admin.Wikis.DeleteWikiPage(app, "Home")
	j.status("delete a page", 204, resp, err)
}
