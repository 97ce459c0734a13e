"""Conformance: SCIM 2.0 user provisioning of a SAML group against the sandbox, through python-gitlab's HTTP session
(python-gitlab 3.12 has no manager for the RFC 7644 interface at /api/scim/v2, so this is what an Azure AD or Okta
style client sends: `Authorization: Bearer <scim token>`, `application/scim+json`).

Run with /usr/bin/python3 against a sandbox seeded with test/conformance/more-areas.test.ts's fixture.
Environment: SANDBOX_URL, ADMIN_TOKEN, SCIM_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import json
import os

from harness import URL, admin, check, done, guest, raises, user  # noqa: F401

session = admin.session
BASE = f"{URL}/api/scim/v2/groups/acme/Users"
HEADERS = {"Authorization": f"Bearer {os.environ['SCIM_TOKEN']}", "Content-Type": "application/scim+json"}
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"


def scim(method, path="", body=None, headers=HEADERS, params=None):
    r = session.request(method, BASE + path, headers=headers, data=None if body is None else json.dumps(body), params=params)
    return r.status_code, (r.json() if r.text else None), r.headers.get("Content-Type")


status, body, ctype = scim("GET")
check("list", status == 200 and ctype == "application/scim+json" and body["totalResults"] == 1, f"{status} {ctype} {body}")
check("user representation", body["Resources"][0] == {
    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
    "id": "alice-uid",
    "active": True,
    "name.formatted": "Alice Example",
    "userName": "alice",
    "meta": {"resourceType": "User"},
    "emails": [{"type": "work", "value": "alice@acme.example", "primary": True}],
}, str(body))

status, body, _ = scim("GET", headers={"Authorization": "Bearer wrong"})
check("wrong token is 401", status == 401 and body == {"message": "401 Unauthorized"}, f"{status} {body}")

status, body, _ = scim(
    "POST",
    body={
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "externalId": "eve-uid",
        "userName": "eve",
        "active": True,
        "emails": [{"primary": True, "type": "work", "value": "eve@acme.example"}],
        "name": {"formatted": "Eve Example", "familyName": "Example", "givenName": "Eve"},
        "meta": {"resourceType": "User"},
    },
)
check("create", status == 201 and body["id"] == "eve-uid" and body["userName"] == "eve", f"{status} {body}")
eve = admin.users.list(username="eve")[0]
check("the user exists with the SAML identity", any(i["extern_uid"] == "eve-uid" for i in admin.users.get(eve.id).identities))
members = [m.username for m in admin.groups.get("acme").members.list(all=True)]
check("the user is a group member", "eve" in members, str(members))

status, body, _ = scim("POST", body={"externalId": "eve-uid", "userName": "eve", "emails": [{"type": "work", "value": "eve@acme.example"}], "name": {"formatted": "Eve"}})
check("duplicate is 409", status == 409 and body["schemas"] == [ERROR] and body["status"] == 409, f"{status} {body}")

status, body, _ = scim("GET", params={"filter": 'userName eq "eve"'})
check("filter userName eq", status == 200 and [u["id"] for u in body["Resources"]] == ["eve-uid"], str(body))
status, body, _ = scim("GET", params={"filter": 'displayName eq "Eve"'})
check("unsupported filter is 412", status == 412 and body == {"schemas": [ERROR], "detail": "Unsupported Filter", "status": 412}, str(body))
status, body, _ = scim("GET", params={"startIndex": 0, "count": 1})
check("startIndex below 1 is read as 1", status == 200 and body["startIndex"] == 1 and len(body["Resources"]) == 1, str(body))

status, body, _ = scim("PATCH", "/eve-uid", body={"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "Replace", "path": "name.formatted", "value": "Eve Renamed"}]})
check("patch is 204", status == 204 and body is None, f"{status} {body}")
check("patched name", admin.users.get(eve.id).name == "Eve Renamed")
status, _, _ = scim("PATCH", "/eve-uid", body={"Operations": [{"op": "Replace", "path": "active", "value": "False"}]})
status2, body2, _ = scim("GET", "/eve-uid")
members = [m.username for m in admin.groups.get("acme").members.list(all=True)]
check("active false deprovisions", status == 204 and body2["active"] is False and "eve" not in members, f"{status} {body2} {members}")

status, body, _ = scim("DELETE", "/eve-uid")
check("delete is 204", status == 204 and body is None, f"{status} {body}")
status, body, _ = scim("GET", "/eve-uid")
check("deleted identity is 404", status == 404 and body == {"schemas": [ERROR], "detail": "Resource eve-uid not found", "status": 404}, str(body))

done()
