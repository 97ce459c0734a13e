// Conformance: go-gitlab (github.com/xanzy/go-gitlab, Debian's 0.73, the library the platform's Terraform provider is
// built on) drives the sandbox. Built in GOPATH mode from Debian's Go packages, without network, by
// test/conformance/go-gitlab.test.ts.
//
// Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits
// 1 on the first mismatch. Each API area is one function in the list `areas`; a new area is a new function there.
package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	gitlab "github.com/xanzy/go-gitlab"
)

// judge holds the clients and counts the checks.
type judge struct {
	admin  *gitlab.Client
	user   *gitlab.Client
	guest  *gitlab.Client
	checks int
}

// area is one part of the interface, exercised with its valid and invalid requests.
type area struct {
	name string
	run  func(j *judge)
}

var areas = []area{
	{"groups and projects", groupsAndProjects},
	{"pagination", pagination},
	{"group export and import", groupExportImport},
	{"pipeline schedules and variables", pipelineSchedules},
	{"pipeline triggers", pipelineTriggers},
	{"badges", badges},
	{"protected environments", protectedEnvironments},
	{"deploy keys", deployKeys},
	{"milestones", milestones},
	{"wikis", wikis},
	{"system hooks", systemHooks},
	{"broadcast messages", broadcastMessages},
	{"application settings", applicationSettings},
	{"deployments", deployments},
	{"templates", templates},
	{"variables, project settings, project export and import", variablesAndSettings},
	{"project hooks", projectHooks},
	{"group hooks", groupHooks},
	{"protected branches", protectedBranches},
	{"protected tags", protectedTags},
	{"deploy tokens", deployTokens},
	{"members, shares and labels", membersSharesLabels},
}

func client(token string) *gitlab.Client {
	base := strings.TrimRight(os.Getenv("SANDBOX_URL"), "/") + "/api/v4"
	c, err := gitlab.NewClient(token, gitlab.WithBaseURL(base), gitlab.WithoutRetries())
	if err != nil {
		fmt.Printf("FAIL client: %v\n", err)
		os.Exit(1)
	}
	return c
}

// check records one check; a failed one ends the run.
func (j *judge) check(name string, ok bool, detail ...interface{}) {
	if !ok {
		fmt.Printf("FAIL %s %s\n", name, fmt.Sprint(detail...))
		os.Exit(1)
	}
	j.checks++
	fmt.Printf("ok %s\n", name)
}

// must ends the run when a call that should succeed fails.
func (j *judge) must(name string, err error) {
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", name, err)
		os.Exit(1)
	}
}

// refused checks that a call failed with this status and that the error body, or the message go-gitlab made of it,
// contains `text`.
func (j *judge) refused(name string, status int, text string, resp *gitlab.Response, err error) {
	var e *gitlab.ErrorResponse
	if !errors.As(err, &e) || resp == nil {
		j.check(name, false, "expected an HTTP error ", status, ", got ", err)
		return
	}
	body := string(e.Body)
	j.check(name, resp.StatusCode == status && (strings.Contains(body, text) || strings.Contains(e.Message, text)),
		"expected ", status, " with ", text, ", got ", resp.StatusCode, " ", body)
}

// status checks a successful call's status.
func (j *judge) status(name string, want int, resp *gitlab.Response, err error) {
	j.must(name, err)
	j.check(name, resp.StatusCode == want, "expected ", want, ", got ", resp.StatusCode)
}

func main() {
	j := &judge{
		admin: client(os.Getenv("ADMIN_TOKEN")),
		user:  client(os.Getenv("USER_TOKEN")),
		guest: client(""),
	}
	only := os.Getenv("AREAS")
	for _, a := range areas {
		if only != "" && !strings.Contains(only, a.name) {
			continue
		}
		fmt.Printf("# %s\n", a.name)
		a.run(j)
	}
	fmt.Printf("OK %d checks\n", j.checks)
}

// created is the status of a successful POST.
const created = http.StatusCreated
