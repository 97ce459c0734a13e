package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	gitlab "github.com/xanzy/go-gitlab"
)

// The project the test's fixture seeds with a CI-made deployment and the merge requests it shipped.
const seeded = "seeded/api"

const deploySHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"

// deployments drives the contract's five Deployments endpoints (and the environments they create) on the project
// made by groupsAndProjects and on the fixture's seeded project.
func deployments(j *judge) {
	status := gitlab.DeploymentStatus
	d, resp, err := j.admin.Deployments.CreateProjectDeployment(app, &gitlab.CreateProjectDeploymentOptions{
		Environment: gitlab.String("staging"), Ref: gitlab.String("main"), SHA: gitlab.String(deploySHA),
		Tag: gitlab.Bool(false), Status: status(gitlab.DeploymentStatusRunning),
	})
	j.status("create a deployment", created, resp, err)
	j.check("deployment fields", d.IID == 1 && d.Status == "running" && d.Ref == "main" && d.SHA == deploySHA &&
		d.User != nil && d.User.Username == "root" && d.Environment != nil && d.Environment.Name == "staging" &&
		d.Deployable.ID == 0 && d.CreatedAt != nil && d.UpdatedAt != nil, fmt.Sprintf("%+v", d))
	_, resp, err = j.admin.Deployments.CreateProjectDeployment(app, &gitlab.CreateProjectDeploymentOptions{
		Environment: gitlab.String("staging"), Ref: gitlab.String("main"), Tag: gitlab.Bool(false),
		Status: status(gitlab.DeploymentStatusSuccess),
	})
	j.refused("a deployment without a sha", 400, "sha is missing", resp, err)
	_, resp, err = j.admin.Deployments.CreateProjectDeployment(app, &gitlab.CreateProjectDeploymentOptions{
		Environment: gitlab.String("staging"), Ref: gitlab.String("main"), SHA: gitlab.String(deploySHA),
		Tag: gitlab.Bool(false), Status: status("done"),
	})
	j.refused("an unknown status", 400, "status does not have a valid value", resp, err)
	_, resp, err = j.admin.Deployments.CreateProjectDeployment(app, &gitlab.CreateProjectDeploymentOptions{
		Environment: gitlab.String("staging"), Ref: gitlab.String("main"), SHA: gitlab.String("not-a-sha"),
		Tag: gitlab.Bool(false), Status: status(gitlab.DeploymentStatusSuccess),
	})
	j.refused("a commit that does not exist", 400, `"sha":["The commit does not exist"]`, resp, err)
	_, resp, err = j.user.Deployments.CreateProjectDeployment(app, &gitlab.CreateProjectDeploymentOptions{
		Environment: gitlab.String("staging"), Ref: gitlab.String("main"), SHA: gitlab.String(deploySHA),
		Tag: gitlab.Bool(false), Status: status(gitlab.DeploymentStatusSuccess),
	})
	j.refused("a non-member may not deploy", 403, "403 Forbidden", resp, err)

	done, _, err := j.admin.Deployments.UpdateProjectDeployment(app, d.ID, &gitlab.UpdateProjectDeploymentOptions{
		Status: status(gitlab.DeploymentStatusSuccess),
	})
	j.must("finish a deployment", err)
	j.check("succeeded", done.ID == d.ID && done.Status == "success", done.Status)
	_, resp, err = j.admin.Deployments.UpdateProjectDeployment(app, d.ID, &gitlab.UpdateProjectDeploymentOptions{
		Status: status(gitlab.DeploymentStatusRunning),
	})
	j.refused("a finished deployment does not run again", 400, `cannot transition via \"run\"`, resp, err)
	_, resp, err = j.admin.Deployments.UpdateProjectDeployment(app, 99999, &gitlab.UpdateProjectDeploymentOptions{
		Status: status(gitlab.DeploymentStatusFailed),
	})
	j.refused("update a missing deployment", 404, "404 Not found", resp, err)

	review, _, err := j.admin.Deployments.CreateProjectDeployment(app, &gitlab.CreateProjectDeploymentOptions{
		Environment: gitlab.String("review/login"), Ref: gitlab.String("login"), SHA: gitlab.String(deploySHA[:8]),
		Tag: gitlab.Bool(false), Status: status(gitlab.DeploymentStatusFailed),
	})
	j.must("create a deployment to a review app", err)
	j.check("the second deployment", review.IID == 2 && review.Environment.Name == "review/login" &&
		review.Status == "failed", fmt.Sprintf("%+v", review))

	all, resp, err := j.admin.Deployments.ListProjectDeployments(app, nil)
	j.must("list deployments", err)
	j.check("by id, ascending", len(all) == 2 && all[0].ID == d.ID && all[1].ID == review.ID &&
		resp.TotalItems == 2, len(all))
	desc, _, err := j.admin.Deployments.ListProjectDeployments(app, &gitlab.ListProjectDeploymentsOptions{
		OrderBy: gitlab.String("iid"), Sort: gitlab.String("desc"),
	})
	j.must("list by iid, descending", err)
	j.check("by iid, descending", len(desc) == 2 && desc[0].IID == 2 && desc[1].IID == 1, len(desc))
	staging, _, err := j.admin.Deployments.ListProjectDeployments(app, &gitlab.ListProjectDeploymentsOptions{
		Environment: gitlab.String("staging"), Status: gitlab.String("success"),
	})
	j.must("list by environment and status", err)
	j.check("environment and status filters", len(staging) == 1 && staging[0].ID == d.ID, len(staging))
	now := time.Now()
	recent, _, err := j.admin.Deployments.ListProjectDeployments(app, &gitlab.ListProjectDeploymentsOptions{
		UpdatedAfter: gitlab.Time(now.Add(-time.Hour)), UpdatedBefore: gitlab.Time(now.Add(time.Hour)),
	})
	j.must("list by update time", err)
	j.check("updated_after and updated_before", len(recent) == 2, len(recent))
	old, _, err := j.admin.Deployments.ListProjectDeployments(app, &gitlab.ListProjectDeploymentsOptions{
		UpdatedBefore: gitlab.Time(now.Add(-time.Hour)),
	})
	j.must("list by an earlier update time", err)
	j.check("nothing updated before", len(old) == 0, len(old))
	_, resp, err = j.admin.Deployments.ListProjectDeployments(app, &gitlab.ListProjectDeploymentsOptions{
		OrderBy: gitlab.String("title"),
	})
	j.refused("an unknown order", 400, "order_by does not have a valid value", resp, err)
	_, resp, err = j.guest.Deployments.ListProjectDeployments(app, nil)
	j.refused("a guest must sign in", 401, "401 Unauthorized", resp, err)
	read, _, err := j.user.Deployments.ListProjectDeployments(app, nil)
	j.must("a signed-in user reads an internal project's deployments", err)
	j.check("read by a non-member", len(read) == 2, len(read))

	got, _, err := j.admin.Deployments.GetProjectDeployment(app, review.ID)
	j.must("get a deployment", err)
	j.check("get", got.ID == review.ID && got.Ref == "login" && got.SHA == deploySHA[:8] &&
		got.Environment.Name == "review/login", fmt.Sprintf("%+v", got))
	_, resp, err = j.admin.Deployments.GetProjectDeployment(app, 99999)
	j.refused("a missing deployment", 404, "404 Not found", resp, err)

	envs, _, err := j.admin.Environments.ListEnvironments(app, nil)
	j.must("list the environments the deployments made", err)
	j.check("environments came with their first deployment", len(envs) == 2 && envs[0].Name == "staging" &&
		envs[1].Name == "review/login" && envs[0].State == "available", len(envs))
	env, _, err := j.admin.Environments.GetEnvironment(app, envs[0].ID)
	j.must("get an environment", err)
	j.check("its last successful deployment", env.LastDeployment != nil && env.LastDeployment.ID == d.ID,
		fmt.Sprintf("%+v", env.LastDeployment))

	// The fixture's deployment was made by a CI job: it carries the job, and the API may not change it.
	ci, _, err := j.admin.Deployments.ListProjectDeployments(seeded, &gitlab.ListProjectDeploymentsOptions{
		Environment: gitlab.String("production"),
	})
	j.must("list the seeded deployments", err)
	j.check("a deployment with its deployable job", len(ci) == 1 && ci[0].Deployable.Name == "deploy" &&
		ci[0].Deployable.Status == "success" && ci[0].Deployable.Pipeline.Ref == "main" &&
		ci[0].Deployable.Pipeline.SHA == ci[0].SHA && ci[0].Environment.ExternalURL == "https://api.seeded.example" &&
		ci[0].User.Username == "alice", fmt.Sprintf("%+v", ci))
	_, resp, err = j.admin.Deployments.UpdateProjectDeployment(seeded, ci[0].ID,
		&gitlab.UpdateProjectDeploymentOptions{Status: status(gitlab.DeploymentStatusFailed)})
	j.refused("a CI deployment is not updated through the API", 403,
		"Deployments created using GitLab CI can not be updated using the API", resp, err)

	mrs, _, err := j.admin.DeploymentMergeRequests.ListDeploymentMergeRequests(seeded, ci[0].ID,
		&gitlab.ListMergeRequestsOptions{State: gitlab.String("merged"), OrderBy: gitlab.String("created_at"),
			Sort: gitlab.String("asc")})
	j.must("list the merge requests a deployment shipped", err)
	j.check("merge requests of a deployment", len(mrs) == 2 && mrs[0].Title == "Add login" &&
		mrs[0].Author.Username == "alice" && mrs[0].State == "merged" && mrs[0].TargetBranch == "main" &&
		mrs[1].Title == "Fix typo", fmt.Sprintf("%+v", mrs))
	labelled, _, err := j.admin.DeploymentMergeRequests.ListDeploymentMergeRequests(seeded, ci[0].ID,
		&gitlab.ListMergeRequestsOptions{Labels: &gitlab.Labels{"feature"}})
	j.must("filter them by label", err)
	j.check("label filter", len(labelled) == 1 && labelled[0].Title == "Add login", len(labelled))
	none, _, err := j.admin.DeploymentMergeRequests.ListDeploymentMergeRequests(app, d.ID, nil)
	j.must("an API deployment shipped no merge requests", err)
	j.check("none", len(none) == 0, len(none))
	_, resp, err = j.admin.DeploymentMergeRequests.ListDeploymentMergeRequests(seeded, ci[0].ID,
		&gitlab.ListMergeRequestsOptions{State: gitlab.String("open")})
	j.refused("an unknown state", 400, "state does not have a valid value", resp, err)
	_, resp, err = j.user.DeploymentMergeRequests.ListDeploymentMergeRequests(seeded, ci[0].ID, nil)
	j.refused("a private project is invisible to a non-member", 404, "404 Project Not Found", resp, err)
}

// templates drives the instance-level templates the library knows (licenses, .gitignore files, CI configurations;
// 0.73 has no Dockerfile templates), which the platform serves without authentication.
func templates(j *judge) {
	popular, _, err := j.guest.LicenseTemplates.ListLicenseTemplates(&gitlab.ListLicenseTemplatesOptions{
		Popular: gitlab.Bool(true),
	})
	j.must("list the popular licenses without a token", err)
	keys := []string{}
	for _, l := range popular {
		keys = append(keys, l.Key)
	}
	j.check("popular licenses", strings.Join(keys, ",") == "apache-2.0,mit", keys)
	all, resp, err := j.guest.LicenseTemplates.ListLicenseTemplates(nil)
	j.must("list every license", err)
	j.check("every license, with its content unexpanded", len(all) == 7 && resp.TotalItems == 7 &&
		all[4].Key == "mit" &&
		strings.Contains(all[4].Content, "Copyright (c) [year] [fullname]"), len(all))

	year := strconv.Itoa(time.Now().UTC().Year())
	mit, _, err := j.user.LicenseTemplates.GetLicenseTemplate("mit", &gitlab.GetLicenseTemplateOptions{
		Project: gitlab.String("Go Judge"), Fullname: gitlab.String("Jane Doe"),
	})
	j.must("get a license with placeholders", err)
	j.check("the MIT license, expanded", mit.Key == "mit" && mit.Name == "MIT License" &&
		mit.HTMLURL == "http://choosealicense.com/licenses/mit/" && mit.SourceURL == "https://opensource.org/licenses/MIT" &&
		strings.Contains(strings.Join(mit.Conditions, ","), "include-copyright") && len(mit.Permissions) > 0 &&
		len(mit.Limitations) > 0 && strings.Contains(mit.Content, "Copyright (c) "+year+" Jane Doe\n"),
		fmt.Sprintf("%+v", mit))
	ncsa, _, err := j.user.LicenseTemplates.GetLicenseTemplate("ncsa", &gitlab.GetLicenseTemplateOptions{
		Project: gitlab.String("Go Judge"), Fullname: gitlab.String("Jane Doe"),
	})
	j.must("get a license naming the project", err)
	j.check("the project placeholder", ncsa.Nickname == "UIUC/NCSA" &&
		strings.Contains(ncsa.Content, "Developed by: Go Judge\n              Jane Doe"), ncsa.Content)
	own, _, err := j.user.LicenseTemplates.GetLicenseTemplate("mit", nil)
	j.must("get a license without a full name", err)
	j.check("the caller's name is the default holder", strings.Contains(own.Content, "Copyright (c) "+year+" "),
		own.Content[:60])
	_, resp, err = j.guest.LicenseTemplates.GetLicenseTemplate("wtfpl", nil)
	j.refused("a missing license", 404, "404 License Not Found", resp, err)

	ignores, resp, err := j.guest.GitIgnoreTemplates.ListTemplates(&gitlab.ListTemplatesOptions{PerPage: 5})
	j.must("list .gitignore templates", err)
	j.check("a page of .gitignore templates", len(ignores) == 5 && resp.TotalItems == 9 && resp.NextPage == 2 &&
		ignores[0].Name != "" && ignores[0].Content == "", fmt.Sprintf("%+v", resp))
	goIgnore, _, err := j.guest.GitIgnoreTemplates.GetTemplate("Go")
	j.must("get a .gitignore template", err)
	j.check("the Go .gitignore", goIgnore.Name == "Go" && strings.Contains(goIgnore.Content, "*.exe"), goIgnore.Content)
	_, resp, err = j.guest.GitIgnoreTemplates.GetTemplate("Cobol")
	j.refused("a missing .gitignore", 404, "404 gitignore Not Found", resp, err)

	ymls, resp, err := j.guest.CIYMLTemplate.ListAllTemplates(nil)
	j.must("list CI configurations", err)
	names := map[string]bool{}
	for _, y := range ymls {
		names[y.Name] = true
	}
	j.check("CI configurations", len(ymls) == 7 && resp.TotalItems == 7 && names["Go"] && names["Docker"], names)
	yml, _, err := j.guest.CIYMLTemplate.GetTemplate("Go")
	j.must("get a CI configuration", err)
	j.check("the Go CI configuration", yml.Name == "Go" && strings.Contains(yml.Content, "stages:"), yml.Content)
	_, resp, err = j.guest.CIYMLTemplate.GetTemplate("Cobol")
	j.refused("a missing CI configuration", 404, "404 gitlab_ci_yml Not Found", resp, err)
}
