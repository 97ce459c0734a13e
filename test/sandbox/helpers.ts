import { type RunningSandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/server.js";

export interface Call {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

export interface Client {
  sb: RunningSandbox;
  call(
    method: string,
    path: string,
    opts?: {
      token?: string | null;
      json?: unknown;
      form?: string;
      /** A multipart body (fetch sets its Content-Type). */
      multipart?: FormData;
      raw?: string;
      headers?: Record<string, string>;
    },
  ): Promise<Call>;
  admin(method: string, path: string, json?: unknown): Promise<Call>;
  user(method: string, path: string, json?: unknown): Promise<Call>;
}

/** Starts a sandbox on a free port with known tokens. Stop it with `client.sb.stop()`. */
export async function sandbox(opts: SandboxOptions = {}): Promise<Client> {
  const sb = await startSandbox({ adminToken: "admin-token", userToken: "user-token", ...opts });
  const call: Client["call"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const token = o.token === undefined ? "admin-token" : o.token;
    if (token) headers["PRIVATE-TOKEN"] = token;
    let body: string | FormData | undefined = o.raw;
    if (o.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(o.json);
    } else if (o.form !== undefined) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = o.form;
    } else if (o.multipart !== undefined) {
      body = o.multipart;
    }
    const res = await fetch(`${sb.url}${path.startsWith("/-/") ? "" : "/api/v4"}${path}`, {
      method,
      headers,
      body,
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
  return {
    sb,
    call,
    admin: (m, p, json) => call(m, p, { token: "admin-token", json }),
    user: (m, p, json) => call(m, p, { token: "user-token", json }),
  };
}

/** `POST /groups/import` with `file` as `export.tar.gz` and the other form fields given. */
export async function importGroup(
  c: Client,
  token: string,
  file: Buffer,
  fields: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set("file", new Blob([file]), "export.tar.gz");
  const res = await fetch(`${c.sb.url}/api/v4/groups/import`, {
    method: "POST",
    headers: { "PRIVATE-TOKEN": token },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}
