/**
 * A CONNECT proxy (what undici's proxy agent speaks, for http:// and https:// alike) that records the host:port of
 * each tunnel it opens: the tests check that a client went through it, or not. A plain request (not CONNECT) is
 * answered 405.
 */
import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";

export interface ConnectProxy {
  /** What HTTP_PROXY / HTTPS_PROXY are set to. */
  url: string;
  /** host:port of every tunnel opened, in order. */
  tunnels: string[];
  stop(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const proxy = createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  proxy.on("connect", (req, client, head) => {
    tunnels.push(String(req.url));
    const [host, port] = String(req.url).split(":");
    const upstream = connect(Number(port), host!, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    stop: async () => {
      proxy.closeAllConnections();
      await new Promise((done) => proxy.close(done));
    },
  };
}
