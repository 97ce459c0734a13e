package main

import (
	"bytes"
	"fmt"

	gitlab "github.com/xanzy/go-gitlab"
)

// variablesAndSettings drives CI/CD variables (project, group, instance), project settings (EditProject) and project
// export and import. It makes its own group, where the judge's user is a Maintainer.
func variablesAndSettings(j *judge) {
	g, _, err := j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Go Vars"), Path: gitlab.String("go-vars"), Visibility: gitlab.Visibility(gitlab.PrivateVisibility),
	})
	j.must("create the variables group", err)
	me, _, err := j.user.Users.CurrentUser()
	j.must("the judge's user", err)
	_, _, err = j.admin.GroupMembers.AddGroupMember(g.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Int(me.ID), AccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions),
	})
	j.must("make the user a Maintainer", err)
	p, resp, err := j.admin.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name: gitlab.String("App"), Path: gitlab.String("app"), NamespaceID: gitlab.Int(g.ID),
		MergeMethod: gitlab.MergeMethod(gitlab.RebaseMerge), BuildTimeout: gitlab.Int(1800),
	})
	j.status("create a project with settings", created, resp, err)
	j.check("created settings", p.MergeMethod == gitlab.RebaseMerge && p.BuildTimeout == 1800 &&
		p.BuildGitStrategy == "fetch" && p.IssuesAccessLevel == gitlab.EnabledAccessControl, fmt.Sprintf("%+v", p))
	const pid = "go-vars/app"

	// Project variables, as the Maintainer.
	v, resp, err := j.user.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.String("TOKEN"), Value: gitlab.String("s3cr3t-value~1"), Masked: gitlab.Bool(true),
		Protected: gitlab.Bool(true),
	})
	j.status("create a masked project variable", created, resp, err)
	j.check("variable fields", v.Key == "TOKEN" && v.Masked && v.Protected && v.EnvironmentScope == "*" &&
		v.VariableType == gitlab.EnvVariableType, fmt.Sprintf("%+v", v))
	_, _, err = j.user.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.String("TOKEN"), Value: gitlab.String("prod-value"), EnvironmentScope: gitlab.String("production"),
		VariableType: gitlab.VariableType(gitlab.FileVariableType),
	})
	j.must("the same key in another scope", err)
	_, resp, err = j.user.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.String("SHORT"), Value: gitlab.String("short"), Masked: gitlab.Bool(true),
	})
	j.refused("a masked value under 8 characters", 400, `{"message":{"value":["is invalid"]}}`, resp, err)
	_, resp, err = j.user.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.String("TOKEN"), Value: gitlab.String("again"),
	})
	j.refused("a taken key and scope", 400, `(TOKEN) has already been taken`, resp, err)
	list, _, err := j.user.ProjectVariables.ListVariables(pid, nil)
	j.must("list project variables", err)
	j.check("two variables", len(list) == 2 && list[1].EnvironmentScope == "production", fmt.Sprintf("%+v", list))
	_, resp, err = j.user.ProjectVariables.GetVariable(pid, "TOKEN", nil)
	j.refused("a key in two scopes needs a filter", 409, "Please use 'filter[environment_scope]'", resp, err)
	prod, _, err := j.user.ProjectVariables.GetVariable(pid, "TOKEN", &gitlab.GetProjectVariableOptions{
		Filter: &gitlab.VariableFilter{EnvironmentScope: "production"},
	})
	j.must("get with filter[environment_scope]", err)
	j.check("the production variable", prod.Value == "prod-value" && prod.VariableType == gitlab.FileVariableType,
		fmt.Sprintf("%+v", prod))
	upd, _, err := j.user.ProjectVariables.UpdateVariable(pid, "TOKEN", &gitlab.UpdateProjectVariableOptions{
		Value: gitlab.String("prod-changed"), Filter: &gitlab.VariableFilter{EnvironmentScope: "production"},
	})
	j.must("update with a filter in the body", err)
	j.check("only the production variable changed", upd.Value == "prod-changed" && upd.EnvironmentScope == "production",
		fmt.Sprintf("%+v", upd))
	resp, err = j.user.ProjectVariables.RemoveVariable(pid, "TOKEN", &gitlab.RemoveProjectVariableOptions{
		Filter: &gitlab.VariableFilter{EnvironmentScope: "production"},
	})
	j.status("remove with a filter", 204, resp, err)
	left, _, err := j.user.ProjectVariables.GetVariable(pid, "TOKEN", nil)
	j.must("one TOKEN left", err)
	j.check("the masked one is left", left.Value == "s3cr3t-value~1" && left.Masked, fmt.Sprintf("%+v", left))
	_, resp, err = j.guest.ProjectVariables.ListVariables(pid, nil)
	j.refused("a guest", 401, "401 Unauthorized", resp, err)

	// Group variables.
	gv, resp, err := j.user.GroupVariables.CreateVariable(g.ID, &gitlab.CreateGroupVariableOptions{
		Key: gitlab.String("REGISTRY"), Value: gitlab.String("registry.example"), Protected: gitlab.Bool(true),
	})
	j.status("create a group variable", created, resp, err)
	j.check("group variable", gv.Key == "REGISTRY" && gv.Protected && !gv.Masked, fmt.Sprintf("%+v", gv))
	gv, _, err = j.user.GroupVariables.UpdateVariable(g.ID, "REGISTRY", &gitlab.UpdateGroupVariableOptions{
		Value: gitlab.String("registry.example:5000"), Protected: gitlab.Bool(false),
	})
	j.must("update a group variable", err)
	j.check("group variable updated", gv.Value == "registry.example:5000" && !gv.Protected, fmt.Sprintf("%+v", gv))
	_, resp, err = j.user.GroupVariables.GetVariable(g.ID, "NOPE")
	j.refused("a missing group variable", 404, "404 GroupVariable Not Found", resp, err)
	resp, err = j.user.GroupVariables.RemoveVariable(g.ID, "REGISTRY")
	j.status("remove a group variable", 204, resp, err)

	// Instance variables: administrators only.
	iv, resp, err := j.admin.InstanceVariables.CreateVariable(&gitlab.CreateInstanceVariableOptions{
		Key: gitlab.String("GLOBAL"), Value: gitlab.String("everywhere"),
	})
	j.status("create an instance variable", created, resp, err)
	j.check("instance variable", iv.Key == "GLOBAL" && iv.Value == "everywhere", fmt.Sprintf("%+v", iv))
	_, resp, err = j.user.InstanceVariables.ListVariables(nil)
	j.refused("instance variables for a non-administrator", 403, "403 Forbidden", resp, err)
	iv, _, err = j.admin.InstanceVariables.UpdateVariable("GLOBAL", &gitlab.UpdateInstanceVariableOptions{
		Value: gitlab.String("changed"),
	})
	j.must("update an instance variable", err)
	j.check("instance variable updated", iv.Value == "changed", fmt.Sprintf("%+v", iv))
	resp, err = j.admin.InstanceVariables.RemoveVariable("GLOBAL")
	j.status("remove an instance variable", 204, resp, err)

	// Project settings through EditProject, as the Maintainer.
	ep, _, err := j.user.Projects.EditProject(pid, &gitlab.EditProjectOptions{
		MergeMethod: gitlab.MergeMethod(gitlab.FastForwardMerge), SquashOption: gitlab.SquashOption(gitlab.SquashOptionDefaultOn),
		CIDefaultGitDepth: gitlab.Int(20), BuildGitStrategy: gitlab.String("clone"),
		IssuesAccessLevel: gitlab.AccessControl(gitlab.PrivateAccessControl),
	})
	j.must("edit project settings", err)
	j.check("edited settings", ep.MergeMethod == gitlab.FastForwardMerge && ep.SquashOption == gitlab.SquashOptionDefaultOn &&
		ep.CIDefaultGitDepth == 20 && ep.BuildGitStrategy == "clone" && ep.IssuesAccessLevel == gitlab.PrivateAccessControl,
		fmt.Sprintf("%+v", ep))
	got, _, err := j.admin.Projects.GetProject(pid, nil)
	j.must("read the project", err)
	j.check("GET shows the settings", got.MergeMethod == gitlab.FastForwardMerge && got.CIDefaultGitDepth == 20,
		fmt.Sprintf("%+v", got))
	_, resp, err = j.user.Projects.EditProject(pid, &gitlab.EditProjectOptions{BuildTimeout: gitlab.Int(60)})
	j.refused("a build timeout under 10 minutes", 400, `"build_timeout":["needs to be between 10 minutes and 1 month"]`, resp, err)
	_, resp, err = j.user.Projects.EditProject(pid, &gitlab.EditProjectOptions{
		Visibility: gitlab.Visibility(gitlab.PrivateVisibility),
	})
	j.refused("visibility needs the Owner", 403, "403 Forbidden", resp, err)
	_, resp, err = j.user.Projects.ArchiveProject(pid)
	j.refused("archiving needs the Owner", 403, "403 Forbidden", resp, err)

	// Export and import.
	resp, err = j.user.ProjectImportExport.ScheduleExport(pid, &gitlab.ScheduleExportOptions{})
	j.status("schedule an export", 202, resp, err)
	st, _, err := j.user.ProjectImportExport.ExportStatus(pid)
	j.must("export status", err)
	j.check("export finished", st.ExportStatus == "finished" && st.Links.APIURL != "", fmt.Sprintf("%+v", st))
	archive, _, err := j.user.ProjectImportExport.ExportDownload(pid)
	j.must("download the export", err)
	j.check("a gzip archive", len(archive) > 2 && archive[0] == 0x1f && archive[1] == 0x8b, len(archive))
	is, resp, err := j.user.ProjectImportExport.ImportFromFile(bytes.NewReader(archive), &gitlab.ImportFileOptions{
		Namespace: gitlab.String("go-vars"), Path: gitlab.String("app-copy"),
		OverrideParams: &gitlab.CreateProjectOptions{Description: gitlab.String("imported by go-gitlab")},
	})
	j.status("import the archive", created, resp, err)
	j.check("import finished", is.ImportStatus == "finished" && is.PathWithNamespace == "go-vars/app-copy", fmt.Sprintf("%+v", is))
	is, _, err = j.user.ProjectImportExport.ImportStatus("go-vars/app-copy")
	j.must("import status", err)
	j.check("import status finished", is.ImportStatus == "finished" && is.Description == "imported by go-gitlab", fmt.Sprintf("%+v", is))
	cp, _, err := j.admin.Projects.GetProject("go-vars/app-copy", nil)
	j.must("read the imported project", err)
	j.check("settings came along", cp.MergeMethod == gitlab.FastForwardMerge && cp.CIDefaultGitDepth == 20 &&
		cp.BuildGitStrategy == "clone", fmt.Sprintf("%+v", cp))
}
