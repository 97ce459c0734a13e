package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	gitlab "github.com/xanzy/go-gitlab"
)

func groupsAndProjects(j *judge) {
	g, resp, err := j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name:                  gitlab.String("Go Judge"),
		Path:                  gitlab.String("go-judge"),
		Description:           gitlab.String("driven by go-gitlab"),
		Visibility:            gitlab.Visibility(gitlab.PublicVisibility),
		ProjectCreationLevel:  gitlab.ProjectCreationLevel(gitlab.MaintainerProjectCreation),
		SubGroupCreationLevel: gitlab.SubGroupCreationLevel(gitlab.OwnerSubGroupCreationLevelValue),
		TwoFactorGracePeriod:  gitlab.Int(24),
	})
	j.status("create a group", created, resp, err)
	j.check("group fields", g.FullPath == "go-judge" && g.Visibility == gitlab.PublicVisibility &&
		g.ProjectCreationLevel == gitlab.MaintainerProjectCreation &&
		g.SubGroupCreationLevel == gitlab.OwnerSubGroupCreationLevelValue && g.TwoFactorGracePeriod == 24 &&
		g.DefaultBranchProtection == 2 && g.CreatedAt != nil, fmt.Sprintf("%+v", g))

	sub, _, err := j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Apps"), Path: gitlab.String("apps"), ParentID: gitlab.Int(g.ID),
		Visibility: gitlab.Visibility(gitlab.InternalVisibility),
	})
	j.must("create a subgroup", err)
	j.check("subgroup", sub.FullPath == "go-judge/apps" && sub.ParentID == g.ID, fmt.Sprintf("%+v", sub))

	_, resp, err = j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Apps"), Path: gitlab.String("apps"), ParentID: gitlab.Int(g.ID),
	})
	j.refused("a taken path", 400, `Failed to save group {:name=>["has already been taken"], :path=>["has already been taken"]}`, resp, err)
	_, resp, err = j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Too open"), Path: gitlab.String("open"), ParentID: gitlab.Int(sub.ID),
		Visibility: gitlab.Visibility(gitlab.PublicVisibility),
	})
	j.refused("a subgroup more visible than its parent", 400, "public is not allowed since the parent group has a internal visibility.", resp, err)

	got, _, err := j.admin.Groups.GetGroup("go-judge/apps", &gitlab.GetGroupOptions{WithProjects: gitlab.Bool(false)})
	j.must("get a group by full path", err)
	j.check("get by path", got.ID == sub.ID && got.Projects == nil, fmt.Sprintf("%+v", got))
	_, resp, err = j.guest.Groups.GetGroup(sub.ID, nil)
	j.refused("an internal group is invisible to a guest", 404, "404 Group Not Found", resp, err)
	_, resp, err = j.guest.Groups.UpdateGroup(g.ID, &gitlab.UpdateGroupOptions{Description: gitlab.String("x")})
	j.refused("a guest may not write", 401, "401 Unauthorized", resp, err)
	_, resp, err = j.user.Groups.UpdateGroup(g.ID, &gitlab.UpdateGroupOptions{Description: gitlab.String("x")})
	j.refused("a non-member may not write", 403, "403 Forbidden", resp, err)
	upd, _, err := j.admin.Groups.UpdateGroup(g.ID, &gitlab.UpdateGroupOptions{
		Description:          gitlab.String("updated"),
		RequestAccessEnabled: gitlab.Bool(false),
	})
	j.must("update a group", err)
	j.check("update", upd.Description == "updated" && !upd.RequestAccessEnabled, fmt.Sprintf("%+v", upd))

	p, resp, err := j.admin.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name: gitlab.String("App"), Path: gitlab.String("app"), NamespaceID: gitlab.Int(sub.ID),
		Visibility: gitlab.Visibility(gitlab.InternalVisibility), DefaultBranch: gitlab.String("main"),
		Description: gitlab.String("the app"),
	})
	j.status("create a project", created, resp, err)
	j.check("project fields", p.PathWithNamespace == "go-judge/apps/app" && p.Namespace.ID == sub.ID &&
		p.Visibility == gitlab.InternalVisibility && p.Description == "the app", fmt.Sprintf("%+v", p))
	byPath, _, err := j.admin.Projects.GetProject("go-judge/apps/app", nil)
	j.must("get a project by full path", err)
	j.check("project by path", byPath.ID == p.ID, byPath.ID)
	list, _, err := j.admin.Groups.ListGroupProjects(g.ID, &gitlab.ListGroupProjectsOptions{
		IncludeSubGroups: gitlab.Bool(true), Simple: gitlab.Bool(true),
	})
	j.must("list a group's projects with its subgroups'", err)
	j.check("group projects", len(list) == 1 && list[0].ID == p.ID, len(list))
	_, resp, err = j.guest.Projects.GetProject(p.ID, nil)
	j.refused("an internal project is invisible to a guest", 404, "404 Project Not Found", resp, err)
	_, resp, err = j.admin.Projects.GetProject("go-judge/apps/nothing", nil)
	j.refused("a missing project", 404, "404 Project Not Found", resp, err)
}

// pagination walks a list page by page with the headers go-gitlab reads.
func pagination(j *judge) {
	parent, _, err := j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Many"), Path: gitlab.String("many"),
	})
	j.must("create a parent", err)
	for i := 1; i <= 23; i++ {
		_, _, err := j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
			Name: gitlab.String(fmt.Sprintf("Child %02d", i)), Path: gitlab.String(fmt.Sprintf("child-%02d", i)),
			ParentID: gitlab.Int(parent.ID),
		})
		j.must("create a subgroup", err)
	}
	opt := &gitlab.ListSubGroupsOptions{ListOptions: gitlab.ListOptions{PerPage: 10}, OrderBy: gitlab.String("path")}
	var names []string
	pages := 0
	for {
		page, resp, err := j.admin.Groups.ListSubGroups(parent.ID, opt)
		j.must("list a page", err)
		pages++
		j.check(fmt.Sprintf("page %d headers", pages), resp.TotalItems == 23 && resp.TotalPages == 3 &&
			resp.ItemsPerPage == 10 && resp.CurrentPage == pages, fmt.Sprintf("%+v", resp))
		for _, g := range page {
			names = append(names, g.Path)
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	j.check("three pages, every subgroup once, in order", pages == 3 && len(names) == 23 &&
		sort.StringsAreSorted(names) && names[0] == "child-01" && names[22] == "child-23", names)
	_, resp, err := j.admin.Groups.ListSubGroups(parent.ID, &gitlab.ListSubGroupsOptions{
		ListOptions: gitlab.ListOptions{PerPage: 500},
	})
	j.must("a page size above the maximum", err)
	j.check("per_page is clamped to 100", resp.ItemsPerPage == 100, resp.ItemsPerPage)
	past, resp, err := j.admin.Groups.ListSubGroups(parent.ID, &gitlab.ListSubGroupsOptions{
		ListOptions: gitlab.ListOptions{Page: 9, PerPage: 10},
	})
	j.must("a page past the end", err)
	j.check("a page past the end is empty", len(past) == 0 && resp.NextPage == 0 && resp.TotalItems == 23, len(past))
}

// groupExportImport round-trips a group through the library's export download and multipart import.
func groupExportImport(j *judge) {
	g, _, err := j.admin.Groups.GetGroup("go-judge", nil)
	j.must("get the group", err)
	_, _, err = j.admin.GroupMilestones.CreateGroupMilestone(g.ID, &gitlab.CreateGroupMilestoneOptions{
		Title: gitlab.String("exported"), Description: gitlab.String("goes along"),
	})
	j.must("a milestone to export", err)
	_, _, err = j.admin.GroupBadges.AddGroupBadge(g.ID, &gitlab.AddGroupBadgeOptions{
		LinkURL: gitlab.String("https://go.example/%{project_path}"), ImageURL: gitlab.String("https://go.example/b.svg"),
	})
	j.must("a badge to export", err)

	_, resp, err := j.admin.GroupImportExport.ExportDownload(g.ID)
	j.refused("no archive before an export", 404, "404 Not found or has expired", resp, err)
	resp, err = j.admin.GroupImportExport.ScheduleExport(g.ID)
	j.status("schedule an export", 202, resp, err)
	archive, _, err := j.admin.GroupImportExport.ExportDownload(g.ID)
	j.must("download the archive", err)
	data, _ := io.ReadAll(archive)
	zr, err := gzip.NewReader(bytes.NewReader(data))
	j.must("the archive is gzip", err)
	tar, err := io.ReadAll(zr)
	j.must("the archive unpacks", err)
	j.check("the archive is a tar", len(tar) > 512 && string(tar[257:262]) == "ustar", len(tar))

	dir, err := os.MkdirTemp("", "go-gitlab-export-")
	j.must("a temporary folder", err)
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "go-judge_export.tar.gz")
	j.must("save the archive", os.WriteFile(file, data, 0o600))
	resp, err = j.admin.GroupImportExport.ImportFile(&gitlab.GroupImportFileOptions{
		Name: gitlab.String("Go Judge Copy"), Path: gitlab.String("go-judge-copy"), File: gitlab.String(file),
	})
	j.status("import the archive", 202, resp, err)
	subs, _, err := j.admin.Groups.ListSubGroups("go-judge-copy", nil)
	j.must("list the imported subgroups", err)
	j.check("subgroups came back", len(subs) == 1 && subs[0].FullPath == "go-judge-copy/apps", len(subs))
	ms, _, err := j.admin.GroupMilestones.ListGroupMilestones("go-judge-copy", nil)
	j.must("list the imported milestones", err)
	j.check("milestones came back", len(ms) == 1 && ms[0].Title == "exported" && ms[0].Description == "goes along", len(ms))
	bs, _, err := j.admin.GroupBadges.ListGroupBadges("go-judge-copy", nil)
	j.must("list the imported badges", err)
	j.check("badges came back", len(bs) == 1 && bs[0].LinkURL == "https://go.example/%{project_path}", len(bs))

	bad := filepath.Join(dir, "bad.tar.gz")
	j.must("write a bad archive", os.WriteFile(bad, []byte("not an archive"), 0o600))
	resp, err = j.admin.GroupImportExport.ImportFile(&gitlab.GroupImportFileOptions{
		Name: gitlab.String("Bad"), Path: gitlab.String("bad"), File: gitlab.String(bad),
	})
	j.refused("a file that is not an archive", 400, "bad.tar.gz: it is not a gzip-compressed tar archive", resp, err)
	_, resp, err = j.admin.Groups.GetGroup("bad", nil)
	j.refused("nothing is created from it", 404, "404 Group Not Found", resp, err)
}
