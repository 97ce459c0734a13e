/**
 * The proxy from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, or their lower-case forms), checked before any
 * request and named in errors: a proxy that refuses the connection, cannot be found, or will not open a tunnel is
 * said to be the proxy's doing, with the variable to check, not blamed on the platform's URL.
 *
 * Which proxy a request to the platform goes through follows undici's EnvHttpProxyAgent, which sends the requests:
 * HTTPS_PROXY for an https:// platform (HTTP_PROXY when it is not set), HTTP_PROXY for http://, none when NO_PROXY
 * lists the host (`*`, a host name or a domain suffix such as `.example.com`, optionally with `:port`).
 */
import { ClientConfigError } from "./errors.js";

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/** The proxy requests to the platform go through: its URL and the variable that named it. */
export interface PlatformProxy {
  variable: "HTTPS_PROXY" | "HTTP_PROXY";
  /** The proxy's URL as it may be shown: a user name and password masked. */
  shown: string;
}

/** A variable or its lower-case form, as forgeform always read them (upper case first). */
function variable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

/** A proxy URL as it may be shown: whatever stands before an `@` (a user name and password) masked. */
function masked(value: string): string {
  return value.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i,
    (_whole, scheme?: string) => `${scheme ?? ""}***@`,
  );
}

/**
 * The proxy variables, each checked to be a URL undici can use (`http://host:port`, or `https://` for a proxy
 * spoken to over TLS): anything else is an error naming the variable, before any request.
 */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const settings: ProxySettings = {};
  for (const [name, key] of [
    ["HTTP_PROXY", "httpProxy"],
    ["HTTPS_PROXY", "httpsProxy"],
  ] as const) {
    const value = variable(env, name);
    if (value === undefined) continue;
    const problem = proxyUrlProblem(value);
    if (problem) {
      throw new ClientConfigError(
        `${name} (${masked(value)}) is not a proxy URL forgeform can use: ${problem}. Write it as http://host:port (http://user:password@host:port with credentials), or unset it`,
      );
    }
    settings[key] = value;
  }
  const noProxy = variable(env, "NO_PROXY");
  if (noProxy !== undefined) settings.noProxy = noProxy;
  return settings;
}

function proxyUrlProblem(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return "it has no scheme (http://)";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "it is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `its scheme is ${url.protocol.slice(0, -1)}, and only http and https proxies are supported`;
  }
  if (url.hostname === "") return "it has no host";
  return undefined;
}

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

/** Whether NO_PROXY sends requests to `origin` straight to it (undici's rules, see the top). */
function bypassed(origin: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  if (noProxy === "*") return true;
  const host = origin.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(origin.port, 10) || DEFAULT_PORTS[origin.protocol] || 0;
  return noProxy
    .split(/[,\s]/)
    .filter((entry) => entry !== "")
    .some((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      const name = (parsed ? parsed[1]! : entry).replace(/^\*?\./, "").toLowerCase();
      const entryPort = parsed ? Number.parseInt(parsed[2]!, 10) : 0;
      if (entryPort && entryPort !== port) return false;
      return host === name || host.endsWith(`.${name}`);
    });
}

/** The proxy requests to the platform at `origin` go through, or undefined when they go straight to it. */
export function platformProxy(origin: URL, settings: ProxySettings): PlatformProxy | undefined {
  if (bypassed(origin, settings.noProxy)) return undefined;
  if (origin.protocol === "https:" && settings.httpsProxy) {
    return { variable: "HTTPS_PROXY", shown: masked(settings.httpsProxy) };
  }
  if (settings.httpProxy) return { variable: "HTTP_PROXY", shown: masked(settings.httpProxy) };
  return undefined;
}

/** Errors of connecting to the proxy, in words. */
const CONNECT_FAILURES: Record<string, string> = {
  ECONNREFUSED: "refused the connection",
  ENOTFOUND: "was not found (its host name does not resolve)",
  EAI_AGAIN: "could not be looked up (DNS failed for now)",
  EHOSTUNREACH: "cannot be reached",
  ENETUNREACH: "cannot be reached",
  ETIMEDOUT: "did not answer in time",
  UND_ERR_CONNECT_TIMEOUT: "did not answer in time",
};

/**
 * What went wrong on the way through the proxy, when it was the proxy: it could not be reached (every connection
 * goes to the proxy, so a refused or unresolvable connection is the proxy's), or it answered the tunnel request
 * (CONNECT) with something other than 200. Undefined for every other error.
 */
export function proxyFailure(proxy: PlatformProxy, code: string, message: string): string | undefined {
  const where = `the proxy ${proxy.shown} (${proxy.variable})`;
  const failure = CONNECT_FAILURES[code];
  if (failure)
    return `${where} ${failure}: check that it is up and that ${proxy.variable} is right (${code})`;
  const answered = /Proxy response \((\d{3})\)/.exec(message);
  if (!answered) return undefined;
  const status = Number(answered[1]);
  const advice =
    status === 407
      ? `it wants credentials: give them in ${proxy.variable} (http://user:password@host:port)`
      : status === 403
        ? "it does not allow this destination: ask its administrators to, or list the platform's host in NO_PROXY if it is reachable without the proxy"
        : status === 502 || status === 503 || status === 504
          ? "it could not reach the platform: is the URL right and the platform up? (--url / FORGEFORM_URL)"
          : "check the proxy";
  return `${where} answered ${status} to the request for a tunnel to the platform: ${advice}`;
}
