package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	gitlab "github.com/xanzy/go-gitlab"
)

func systemHooks(j *judge) {
	h, resp, err := j.admin.SystemHooks.AddHook(&gitlab.AddHookOptions{
		URL: gitlab.String("https://hooks.example/in"), Token: gitlab.String("s3cret"),
		PushEvents: gitlab.Bool(true), EnableSSLVerification: gitlab.Bool(false),
	})
	j.status("add a system hook", created, resp, err)
	j.check("hook fields", h.URL == "https://hooks.example/in" && h.PushEvents && !h.EnableSSLVerification &&
		h.CreatedAt != nil, fmt.Sprintf("%+v", h))
	_, resp, err = j.admin.SystemHooks.AddHook(&gitlab.AddHookOptions{})
	j.refused("a hook without a url", 400, "url is missing", resp, err)
	_, resp, err = j.user.SystemHooks.ListHooks()
	j.refused("hooks are for administrators", 403, "403 Forbidden", resp, err)
	_, resp, err = j.guest.SystemHooks.ListHooks()
	j.refused("a guest must sign in", 401, "401 Unauthorized", resp, err)
	list, _, err := j.admin.SystemHooks.ListHooks()
	j.must("list hooks", err)
	j.check("list without the token", len(list) == 1 && list[0].ID == h.ID, len(list))
	ev, _, err := j.admin.SystemHooks.TestHook(h.ID)
	j.must("test a hook", err)
	j.check("the test payload", ev.EventName == "project_create" && ev.Name == "Ruby" && ev.ProjectID == 1 &&
		ev.OwnerEmail == "example@gitlabhq.com", fmt.Sprintf("%+v", ev))
	_, resp, err = j.admin.SystemHooks.TestHook(99999)
	j.refused("testing a missing hook", 404, "404 Not found", resp, err)
	resp, err = j.admin.SystemHooks.DeleteHook(h.ID)
	j.status("delete a hook", 204, resp, err)
	resp, err = j.admin.SystemHooks.DeleteHook(h.ID)
	j.refused("deleted", 404, "404 System hook Not Found", resp, err)
}

func broadcastMessages(j *judge) {
	starts := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	m, resp, err := j.admin.BroadcastMessage.CreateBroadcastMessage(&gitlab.CreateBroadcastMessageOptions{
		Message: gitlab.String("Maintenance tonight"), StartsAt: &starts, Color: gitlab.String("#aa33ee"),
	})
	j.status("create a broadcast message", created, resp, err)
	j.check("message fields", m.Message == "Maintenance tonight" && m.StartsAt.Equal(starts) &&
		m.EndsAt != nil && m.Color == "#aa33ee" && m.Font == "#FFFFFF" && !m.Active, fmt.Sprintf("%+v", m))
	now, _, err := j.admin.BroadcastMessage.CreateBroadcastMessage(&gitlab.CreateBroadcastMessageOptions{
		Message: gitlab.String("Now"),
	})
	j.must("create one that starts now", err)
	j.check("starts now for an hour, active", now.Active && now.EndsAt.Sub(*now.StartsAt) == time.Hour,
		fmt.Sprintf("%+v", now))
	_, resp, err = j.admin.BroadcastMessage.CreateBroadcastMessage(&gitlab.CreateBroadcastMessageOptions{
		Message: gitlab.String("bad"), Color: gitlab.String("purple"),
	})
	j.refused("a colour that is not hex", 400, "color", resp, err)
	_, resp, err = j.user.BroadcastMessage.CreateBroadcastMessage(&gitlab.CreateBroadcastMessageOptions{
		Message: gitlab.String("x"),
	})
	j.refused("only administrators create", 403, "403 Forbidden", resp, err)
	_, resp, err = j.guest.BroadcastMessage.CreateBroadcastMessage(&gitlab.CreateBroadcastMessageOptions{
		Message: gitlab.String("x"),
	})
	j.refused("a guest must sign in to create", 401, "401 Unauthorized", resp, err)
	list, _, err := j.guest.BroadcastMessage.ListBroadcastMessages(nil)
	j.must("a guest reads the list", err)
	j.check("newest first", len(list) == 2 && list[0].ID == now.ID && list[1].ID == m.ID, len(list))
	u, _, err := j.admin.BroadcastMessage.UpdateBroadcastMessage(m.ID, &gitlab.UpdateBroadcastMessageOptions{
		Message: gitlab.String("Maintenance moved"),
	})
	j.must("update a message", err)
	j.check("updated", u.Message == "Maintenance moved" && u.StartsAt.Equal(starts), u.Message)
	resp, err = j.admin.BroadcastMessage.DeleteBroadcastMessage(m.ID)
	j.status("delete a message", 204, resp, err)
	_, resp, err = j.guest.BroadcastMessage.GetBroadcastMessage(m.ID)
	j.refused("deleted", 404, "404 Not found", resp, err)
}

// settingsView is the part of the settings this area checks. go-gitlab's own Settings type cannot be used: it reads
// polling_interval_multiplier as a quoted decimal ("1.0", as the platform's BigDecimal column is written), while the
// contract types it as a number, which the sandbox follows.
type settingsView struct {
	DefaultProjectsLimit         int                      `json:"default_projects_limit"`
	SignupEnabled                bool                     `json:"signup_enabled"`
	AfterSignOutPath             string                   `json:"after_sign_out_path"`
	DefaultGroupVisibility       gitlab.VisibilityValue   `json:"default_group_visibility"`
	RestrictedVisibilityLevels   []gitlab.VisibilityValue `json:"restricted_visibility_levels"`
	ArchiveBuildsInHumanReadable string                   `json:"archive_builds_in_human_readable"`
	PollingIntervalMultiplier    float64                  `json:"polling_interval_multiplier"`
	CreatedAt                    *time.Time               `json:"created_at"`
}

// settings sends go-gitlab's request for GET or PUT /application/settings and reads the answer into settingsView.
func settings(c *gitlab.Client, method string, opt *gitlab.UpdateSettingsOptions) (*settingsView, *gitlab.Response, error) {
	var body interface{}
	if opt != nil {
		body = opt
	}
	req, err := c.NewRequest(method, "application/settings", body, nil)
	if err != nil {
		return nil, nil, err
	}
	s := new(settingsView)
	resp, err := c.Do(req, s)
	return s, resp, err
}

func applicationSettings(j *judge) {
	_, _, err := j.admin.Settings.GetSettings()
	j.check("go-gitlab's Settings wants polling_interval_multiplier quoted, the contract a number", err != nil &&
		strings.Contains(err.Error(), "unquoted value into float64"), err)
	before, _, err := settings(j.admin, http.MethodGet, nil)
	j.must("read the settings", err)
	j.check("defaults", before.DefaultProjectsLimit == 100000 && before.DefaultGroupVisibility == gitlab.PrivateVisibility &&
		before.PollingIntervalMultiplier == 1 && before.CreatedAt != nil,
		fmt.Sprintf("%d %s", before.DefaultProjectsLimit, before.DefaultGroupVisibility))
	after, _, err := settings(j.admin, http.MethodPut, &gitlab.UpdateSettingsOptions{
		DefaultProjectsLimit:         gitlab.Int(42),
		SignupEnabled:                gitlab.Bool(false),
		AfterSignOutPath:             gitlab.String("https://example.org/bye"),
		DefaultGroupVisibility:       gitlab.Visibility(gitlab.InternalVisibility),
		RestrictedVisibilityLevels:   &[]gitlab.VisibilityValue{gitlab.PublicVisibility},
		ArchiveBuildsInHumanReadable: gitlab.String("90 days"),
	})
	j.must("update the settings", err)
	j.check("updated", after.DefaultProjectsLimit == 42 && !after.SignupEnabled &&
		after.AfterSignOutPath == "https://example.org/bye" && after.DefaultGroupVisibility == gitlab.InternalVisibility &&
		len(after.RestrictedVisibilityLevels) == 1 && after.RestrictedVisibilityLevels[0] == gitlab.PublicVisibility &&
		after.ArchiveBuildsInHumanReadable == "3 months", fmt.Sprintf("%+v", after))
	_, resp, err := settings(j.admin, http.MethodPut, &gitlab.UpdateSettingsOptions{
		ArchiveBuildsInHumanReadable: gitlab.String("2 hours"),
	})
	j.refused("an archive age under a day", 400, `{"archive_builds_in_seconds":["must be at least 1 day"]}`, resp, err)
	_, resp, err = settings(j.admin, http.MethodPut, &gitlab.UpdateSettingsOptions{EnforceTerms: gitlab.Bool(true)})
	j.refused("a setting without the one it requires", 400, "terms is missing", resp, err)
	_, resp, err = settings(j.user, http.MethodGet, nil)
	j.refused("settings are for administrators", 403, "403 Forbidden", resp, err)
	_, resp, err = settings(j.guest, http.MethodGet, nil)
	j.refused("a guest must sign in", 401, "401 Unauthorized", resp, err)
}
