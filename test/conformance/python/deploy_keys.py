"""Conformance: python-gitlab's deploy key managers (project.keys, gl.deploykeys) and SSH key lookup (gl.keys)
against the sandbox (run with /usr/bin/python3).

Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check, "OK <n> checks" at the end, and exits 1
on the first mismatch.
"""

import urllib.parse

import gitlab.exceptions as exc
from harness import URL, admin, check, done, guest, raises, user  # noqa: F401


# Generated with ssh-keygen; fingerprints from `ssh-keygen -l -E md5|sha256`.
ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGM2suMDoH2TlIRFZjhUh09BCWBsYM5t5qrNcp2+Oz9R alice@laptop"
ED25519_MD5 = "13:55:08:a1:ac:e1:ec:37:40:d1:ad:77:b3:94:8b:f8"
ED25519_SHA256 = "SHA256:vMjakht1uw0+HvVpwePdSh3clSSA2CSq2SU3Ol8RjPk"
RSA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDbFn5qjqKocvn+nkam6zaaq4v9x44qjH69/h1z/WaQEsGOUoQf1xjrNQzY0iTrPhS1xoPKwodFmoO1ccbLex7o0gIyVNnfviAtjwkfcSSCXUaiEmRMP+j3wzeAXrBIQOLSgYXO7ysslOukh2swr/RVPJggOWLoWLxT/K4SERg1QPBXk3yWHt7Xn9ncRqaMWhxf7gcv4hPwCXU+kt0MwN0HlvWLbFgOfifDnGnHbwQYC/EO8w+1pQewDkQVnP9xEBnblnjDHsTFGEJLNGsyd8t+rP68nOwSk6gV6YNfaCAdCCWg4a8VzN+7cGnGpkZpn5UsM/q2x27BfMW0AYD5E9br deploy@ci"
RSA_MD5 = "4b:b9:b9:db:75:56:82:24:c8:4f:e6:04:1f:04:5e:05"

api = admin.projects.create({"name": "py-deploy-api"})
web = admin.projects.create({"name": "py-deploy-web"})

raises("guest cannot list project deploy keys", exc.GitlabAuthenticationError, 401, lambda: guest.projects.get(api.id, lazy=True).keys.list())
raises("user cannot see a private project's keys", exc.GitlabListError, 404, lambda: user.projects.get(api.id, lazy=True).keys.list())
raises("user cannot list instance deploy keys", exc.GitlabListError, 403, lambda: user.deploykeys.list())

key = api.keys.create({"title": "CI", "key": ED25519 + "\n", "can_push": True})
check("create returns the key", key.id > 0 and key.title == "CI" and key.key == ED25519 and key.can_push is True, str(key.attributes))
same = api.keys.create({"title": "Other title", "key": ED25519, "can_push": False})
check("creating the same key again returns the existing link unchanged", same.id == key.id and same.title == "CI" and same.can_push is True)
check("the project lists one key", [k.id for k in api.keys.list(all=True)] == [key.id])
check("get one key", api.keys.get(key.id).title == "CI")

key.can_push = False
key.title = "CI deploy"
key.save()
fetched = api.keys.get(key.id)
check("save updates title and can_push", fetched.title == "CI deploy" and fetched.can_push is False, str(fetched.attributes))

enabled = web.keys.enable(key.id)
check("enable links the key to another project", enabled["id"] == key.id and "can_push" not in enabled, str(enabled))
check("the other project lists it", [k.id for k in web.keys.list(all=True)] == [key.id])
raises("enable of an unknown key is 404", exc.GitlabProjectDeployKeyError, 404, lambda: web.keys.enable(99999))

rsa = web.keys.create({"title": "RSA", "key": RSA})
instance = admin.deploykeys.list(all=True)
check("the instance list holds each key once", sorted(k.id for k in instance) == sorted([key.id, rsa.id]), str([k.id for k in instance]))
check("the instance list carries fingerprints", {k.id: k.fingerprint for k in instance}[rsa.id] == RSA_MD5)

e = raises("an invalid key is 400", exc.GitlabCreateError, 400, lambda: api.keys.create({"title": "bad", "key": "ssh-rsa nope"}))
check("the error names the key", "deploy_key.key" in str(e.error_message), str(e.error_message))

found = admin.keys.get(fingerprint=ED25519_MD5)
check("lookup by MD5 fingerprint", found.id == key.id and found.user["username"] == "root", str(found.attributes))
check(
    "a deploy key lookup lists its projects",
    sorted(p["project_id"] for p in found.deploy_keys_projects) == sorted([api.id, web.id]),
    str(found.attributes.get("deploy_keys_projects")),
)
check("lookup by SHA256 fingerprint", admin.keys.get(fingerprint=ED25519_SHA256).id == key.id)
check("lookup by id", admin.keys.get(key.id).key == ED25519)
# KeyManager.get(fingerprint=) calls http_get directly, so failures are plain GitlabHttpErrors.
raises("lookup by an unknown fingerprint is 404", exc.GitlabHttpError, 404, lambda: admin.keys.get(fingerprint="00:" * 15 + "00"))
raises("users cannot look keys up", exc.GitlabHttpError, 403, lambda: user.keys.get(fingerprint=ED25519_MD5))

api.keys.delete(key.id)
check("delete unlinks from the project", api.keys.list(all=True) == [])
check("the key survives while another project uses it", key.id in [k.id for k in admin.deploykeys.list(all=True)])
web.keys.delete(key.id)
check("the key is gone when no project uses it", key.id not in [k.id for k in admin.deploykeys.list(all=True)])
raises("delete of an unlinked key is 404", exc.GitlabDeleteError, 404, lambda: web.keys.delete(key.id))

done()
