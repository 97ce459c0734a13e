package main

import (
	"fmt"
	"net/http"
	"sort"
	"time"

	gitlab "github.com/xanzy/go-gitlab"
)

// membersSharesLabels drives group and project members, shares and labels as 13.12 has them.
func membersSharesLabels(j *judge) {
	g, _, err := j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Members"), Path: gitlab.String("members-judge"),
		Visibility: gitlab.Visibility(gitlab.PrivateVisibility),
	})
	j.must("create a group", err)
	partner, _, err := j.admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.String("Partners"), Path: gitlab.String("partners-judge"),
		Visibility: gitlab.Visibility(gitlab.PrivateVisibility),
	})
	j.must("create another group", err)
	p, _, err := j.admin.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name: gitlab.String("svc"), NamespaceID: gitlab.Int(g.ID),
	})
	j.must("create a project in the group", err)
	root, _, err := j.admin.Users.CurrentUser()
	j.must("the administrator", err)
	me, _, err := j.user.Users.CurrentUser()
	j.must("the user", err)
	found, _, err := j.admin.Users.ListUsers(&gitlab.ListUsersOptions{Username: gitlab.String("ALICE")})
	j.must("find a user by username", err)
	j.check("GET /users?username= ignores case", len(found) == 1 && found[0].Username == "alice", fmt.Sprintf("%+v", found))
	alice := found[0].ID

	// Group members
	m, resp, err := j.admin.GroupMembers.AddGroupMember(g.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Int(alice), AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions),
		ExpiresAt: gitlab.String("2031-03-01"),
	})
	j.status("add a group member", created, resp, err)
	j.check("the member", m.Username == "alice" && m.AccessLevel == gitlab.DeveloperPermissions && m.State == "active" &&
		m.ExpiresAt != nil && time.Time(*m.ExpiresAt).Format("2006-01-02") == "2031-03-01", fmt.Sprintf("%+v", m))
	_, resp, err = j.admin.GroupMembers.AddGroupMember(g.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Int(alice), AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions),
	})
	j.refused("adding again", 409, "Member already exists", resp, err)
	_, resp, err = j.admin.GroupMembers.AddGroupMember(g.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Int(me.ID), AccessLevel: gitlab.AccessLevel(gitlab.AccessLevelValue(60)),
	})
	j.refused("level 60", 400, "is not included in the list", resp, err)
	_, resp, err = j.admin.GroupMembers.AddGroupMember(g.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Int(me.ID), AccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions),
		ExpiresAt: gitlab.String("2001-01-01"),
	})
	j.refused("an expiry in the past", 400, "cannot be a date in the past", resp, err)
	_, _, err = j.admin.GroupMembers.AddGroupMember(g.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Int(me.ID), AccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions),
	})
	j.must("add the user as Maintainer", err)
	_, resp, err = j.user.GroupMembers.EditGroupMember(g.ID, alice, &gitlab.EditGroupMemberOptions{
		AccessLevel: gitlab.AccessLevel(gitlab.OwnerPermissions),
	})
	j.refused("a Maintainer may not promote to Owner (nor change any group member)", 403, "403 Forbidden", resp, err)
	edited, _, err := j.admin.GroupMembers.EditGroupMember(g.ID, alice, &gitlab.EditGroupMemberOptions{
		AccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions),
	})
	j.must("edit a member", err)
	// go-gitlab sends "expires_at": null when ExpiresAt is unset, which clears the date.
	j.check("edited: new level, expiry cleared", edited.AccessLevel == gitlab.MaintainerPermissions && edited.ExpiresAt == nil,
		fmt.Sprintf("%+v", edited))
	_, resp, err = j.admin.GroupMembers.EditGroupMember(g.ID, root.ID, &gitlab.EditGroupMemberOptions{
		AccessLevel: gitlab.AccessLevel(gitlab.DeveloperPermissions),
	})
	j.refused("the last owner cannot be demoted", 403, "403 Forbidden", resp, err)
	listed, _, err := j.admin.Groups.ListGroupMembers(g.ID, &gitlab.ListGroupMembersOptions{UserIDs: &[]int{alice}})
	j.must("list with user_ids", err)
	j.check("user_ids filters", len(listed) == 1 && listed[0].ID == alice, fmt.Sprintf("%+v", listed))
	_, resp, err = j.admin.GroupMembers.GetGroupMember(g.ID, 999999)
	j.refused("a missing member", 404, "404 Not found", resp, err)

	// Project members and inherited ones
	_, resp, err = j.admin.ProjectMembers.AddProjectMember(p.ID, &gitlab.AddProjectMemberOptions{
		UserID: alice, AccessLevel: gitlab.AccessLevel(gitlab.OwnerPermissions),
	})
	j.refused("no Owner on a project", 400, "is not included in the list", resp, err)
	_, resp, err = j.admin.ProjectMembers.AddProjectMember(p.ID, &gitlab.AddProjectMemberOptions{
		UserID: alice, AccessLevel: gitlab.AccessLevel(gitlab.ReporterPermissions),
	})
	j.refused("below the inherited level", 400, "should be greater than or equal to Maintainer inherited membership from group Members", resp, err)
	all, _, err := j.admin.ProjectMembers.ListAllProjectMembers(p.ID, nil)
	j.must("list all project members", err)
	levels := map[string]gitlab.AccessLevelValue{}
	for _, x := range all {
		levels[x.Username] = x.AccessLevel
	}
	j.check("members/all has the group's members", levels["alice"] == gitlab.MaintainerPermissions &&
		levels["root"] == gitlab.OwnerPermissions && levels["sandbox-user"] == gitlab.MaintainerPermissions, fmt.Sprintf("%v", levels))
	one, _, err := j.admin.ProjectMembers.GetInheritedProjectMember(p.ID, alice)
	j.must("get an inherited member", err)
	j.check("the inherited member", one.Username == "alice" && one.AccessLevel == gitlab.MaintainerPermissions)
	direct, _, err := j.admin.ProjectMembers.ListProjectMembers(p.ID, nil)
	j.must("list direct project members", err)
	j.check("no direct member", len(direct) == 0, fmt.Sprintf("%+v", direct))

	// Sharing
	shared, resp, err := j.admin.Groups.ShareGroupWithGroup(g.ID, &gitlab.ShareGroupWithGroupOptions{
		GroupID: gitlab.Int(partner.ID), GroupAccess: gitlab.AccessLevel(gitlab.ReporterPermissions),
	})
	j.status("share a group", created, resp, err)
	j.check("the share in the group's details", len(shared.SharedWithGroups) == 1 &&
		shared.SharedWithGroups[0].GroupID == partner.ID && shared.SharedWithGroups[0].GroupFullPath == "partners-judge" &&
		shared.SharedWithGroups[0].GroupAccessLevel == 20 && shared.SharedWithGroups[0].ExpiresAt == nil,
		fmt.Sprintf("%+v", shared.SharedWithGroups))
	_, resp, err = j.admin.Groups.ShareGroupWithGroup(g.ID, &gitlab.ShareGroupWithGroupOptions{
		GroupID: gitlab.Int(partner.ID), GroupAccess: gitlab.AccessLevel(gitlab.DeveloperPermissions),
	})
	j.refused("sharing again (no update in 13.12: unshare, then share)", 409, "The group has already been shared with this group", resp, err)
	resp, err = j.admin.Groups.UnshareGroupFromGroup(g.ID, partner.ID)
	j.status("unshare", http.StatusNoContent, resp, err)
	resp, err = j.admin.Groups.UnshareGroupFromGroup(g.ID, partner.ID)
	j.refused("unshare again", 404, "404 Group Link Not Found", resp, err)
	resp, err = j.admin.Projects.ShareProjectWithGroup(p.ID, &gitlab.ShareWithGroupOptions{
		GroupID: gitlab.Int(partner.ID), GroupAccess: gitlab.AccessLevel(gitlab.DeveloperPermissions),
	})
	j.status("share a project", created, resp, err)
	got, _, err := j.admin.Projects.GetProject(p.ID, nil)
	j.must("get the project", err)
	j.check("the project's shares", len(got.SharedWithGroups) == 1 && got.SharedWithGroups[0].GroupID == partner.ID &&
		got.SharedWithGroups[0].GroupAccessLevel == 30, fmt.Sprintf("%+v", got.SharedWithGroups))
	resp, err = j.user.Projects.ShareProjectWithGroup(p.ID, &gitlab.ShareWithGroupOptions{
		GroupID: gitlab.Int(g.ID), GroupAccess: gitlab.AccessLevel(gitlab.DeveloperPermissions),
	})
	j.refused("sharing with the project's own group", 409, "Project cannot be shared with the group it is in or one of its ancestors.", resp, err)
	resp, err = j.admin.Projects.ShareProjectWithGroup(p.ID, &gitlab.ShareWithGroupOptions{
		GroupID: gitlab.Int(partner.ID), GroupAccess: gitlab.AccessLevel(gitlab.OwnerPermissions),
	})
	j.refused("no Owner share on a project", 400, "group_access does not have a valid value", resp, err)
	resp, err = j.admin.Projects.DeleteSharedProjectFromGroup(p.ID, partner.ID)
	j.status("unshare the project", http.StatusNoContent, resp, err)

	// Labels
	bug, resp, err := j.user.Labels.CreateLabel(p.ID, &gitlab.CreateLabelOptions{
		Name: gitlab.String("bug"), Color: gitlab.String("Red"), Description: gitlab.String("Broken"), Priority: gitlab.Int(1),
	})
	j.status("create a project label", created, resp, err)
	j.check("the label", bug.Name == "bug" && bug.Color == "#FF0000" && bug.TextColor == "#FFFFFF" && bug.Priority == 1 &&
		bug.IsProjectLabel, fmt.Sprintf("%+v", bug))
	_, resp, err = j.admin.GroupLabels.CreateGroupLabel(g.ID, &gitlab.CreateGroupLabelOptions{
		Name: gitlab.String("org"), Color: gitlab.String("#abc"),
	})
	j.status("create a group label", created, resp, err)
	_, resp, err = j.admin.Labels.CreateLabel(p.ID, &gitlab.CreateLabelOptions{Name: gitlab.String("org"), Color: gitlab.String("#fff")})
	j.refused("a title the group has", 409, "Label already exists", resp, err)
	_, resp, err = j.admin.Labels.CreateLabel(p.ID, &gitlab.CreateLabelOptions{Name: gitlab.String("x"), Color: gitlab.String("#ffff")})
	j.refused("a 4-digit color", 400, "must be a valid color code", resp, err)
	labels, _, err := j.admin.Labels.ListLabels(p.ID, nil)
	j.must("list labels", err)
	names := []string{}
	for _, l := range labels {
		names = append(names, fmt.Sprintf("%s:%v", l.Name, l.IsProjectLabel))
	}
	j.check("the project shows its group's labels", fmt.Sprint(names) == "[bug:true org:false]", fmt.Sprint(names))
	updated, _, err := j.admin.Labels.UpdateLabel(p.ID, &gitlab.UpdateLabelOptions{
		Name: gitlab.String("bug"), NewName: gitlab.String("defect"), Color: gitlab.String("#00ff00"),
	})
	j.must("update a label (PUT /projects/:id/labels)", err)
	j.check("updated", updated.Name == "defect" && updated.Color == "#00ff00" && updated.Priority == 1, fmt.Sprintf("%+v", updated))
	_, resp, err = j.admin.Labels.SubscribeToLabel(p.ID, "defect")
	j.status("subscribe", created, resp, err)
	_, resp, err = j.admin.Labels.SubscribeToLabel(p.ID, "defect")
	// 304 has no body (as on the platform, whose server drops it), so go-gitlab's decoding ends in EOF.
	j.check("subscribe again: 304 Not Modified", resp != nil && resp.StatusCode == http.StatusNotModified, err)
	resp, err = j.admin.Labels.UnsubscribeFromLabel(p.ID, "defect")
	j.status("unsubscribe", created, resp, err)
	gl, _, err := j.admin.GroupLabels.UpdateGroupLabel(g.ID, &gitlab.UpdateGroupLabelOptions{
		Name: gitlab.String("org"), Description: gitlab.String("Org-wide"),
	})
	j.must("update a group label", err)
	j.check("the group label", gl.Description == "Org-wide" && gl.Color == "#abc", fmt.Sprintf("%+v", gl))
	sorted := []string{}
	gls, _, err := j.admin.GroupLabels.ListGroupLabels(g.ID, &gitlab.ListGroupLabelsOptions{OnlyGroupLabels: gitlab.Bool(false)})
	j.must("list group labels with project labels", err)
	for _, l := range gls {
		sorted = append(sorted, l.Name)
	}
	sort.Strings(sorted)
	j.check("only_group_labels=false adds the projects' labels", fmt.Sprint(sorted) == "[defect org]", fmt.Sprint(sorted))
	resp, err = j.admin.Labels.DeleteLabel(p.ID, &gitlab.DeleteLabelOptions{Name: gitlab.String("defect")})
	j.status("delete a label (DELETE /projects/:id/labels)", http.StatusNoContent, resp, err)
	_, resp, err = j.admin.Labels.GetLabel(p.ID, "defect")
	j.refused("deleted", 404, "404 Label Not Found", resp, err)
	resp, err = j.admin.GroupLabels.DeleteGroupLabel(g.ID, &gitlab.DeleteGroupLabelOptions{Name: gitlab.String("org")})
	j.status("delete a group label", http.StatusNoContent, resp, err)
	_, resp, err = j.guest.Labels.ListLabels(p.ID, nil)
	j.refused("a guest on a private project", 404, "404 Project Not Found", resp, err)

	resp, err = j.admin.GroupMembers.RemoveGroupMember(g.ID, alice, nil)
	j.status("remove a group member", http.StatusNoContent, resp, err)
}
