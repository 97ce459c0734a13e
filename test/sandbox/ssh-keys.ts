/** SSH public keys generated with ssh-keygen, and their fingerprints (`ssh-keygen -l -E md5|sha256`), for the tests. */
export const ED25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGM2suMDoH2TlIRFZjhUh09BCWBsYM5t5qrNcp2+Oz9R alice@laptop";
export const ED25519_MD5 = "13:55:08:a1:ac:e1:ec:37:40:d1:ad:77:b3:94:8b:f8";
export const ED25519_SHA = "vMjakht1uw0+HvVpwePdSh3clSSA2CSq2SU3Ol8RjPk";
export const RSA2048 =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDbFn5qjqKocvn+nkam6zaaq4v9x44qjH69/h1z/WaQEsGOUoQf1xjrNQzY0iTrPhS1xoPKwodFmoO1ccbLex7o0gIyVNnfviAtjwkfcSSCXUaiEmRMP+j3wzeAXrBIQOLSgYXO7ysslOukh2swr/RVPJggOWLoWLxT/K4SERg1QPBXk3yWHt7Xn9ncRqaMWhxf7gcv4hPwCXU+kt0MwN0HlvWLbFgOfifDnGnHbwQYC/EO8w+1pQewDkQVnP9xEBnblnjDHsTFGEJLNGsyd8t+rP68nOwSk6gV6YNfaCAdCCWg4a8VzN+7cGnGpkZpn5UsM/q2x27BfMW0AYD5E9br deploy@ci";
export const RSA2048_MD5 = "4b:b9:b9:db:75:56:82:24:c8:4f:e6:04:1f:04:5e:05";
export const RSA2048_SHA = "xzyUNs1D/WNhh67NvpuSUfP7B68STVmOcZUy2w4BwX4";
export const ECDSA384 =
  "ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBCn03VIHmj8lZK+OnIIRUqMJimFHrsPCJewlbq37uOj0+Cqj9PtL2ezmeRYM4n+lY3Mh3M236oTIhsH9GLlPyX7CxpUnQKVnuSLiR2wKJSVIHirqNTrsjY9TkVXsK3em0w== ec@host";
export const ECDSA384_SHA = "0+jR9Cvb00loZEiq7zAkNpMOfm6s629IeNNLYbqcqnI";
export const RSA1024 =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC3czbtMMFuESltG5jBKw/e50kv8QPGgWhOOiGbD4yHyeIgoAsqAFhUjlXPs3OQN8RBeoRbNe2AXIYA5QsgAYCWVCJ4narSTaVcZREPZ0pdAEreT7K0jvxDN49iYQjoAgEg6ZkFoKA5xRcehe5nKa5Usb583PNrPhVJL2N9nE9R+w== weak";

export const OWN_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOIA0zwzsK1zvd3GhvrLOPMSsD70F8UKu3PUhSKTsfex maint@own";
