// A local npm registry serving exactly the tarballs scripts/package packed, so `npm install
// pi-context`, `npx -y pi-context` and `pi install npm:pi-context` run as they will for a user,
// without the network. Every other name is a 404, as an unpublished package is (npm skips an
// optional dependency it cannot find, and fails on any other).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename } from "node:path";

/** The package.json inside a packed tarball. */
function manifestOf(tarball) {
  return JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
}

/**
 * Starts the registry on a free local port. Returns its `url` (for npm_config_registry), the
 * `requests` it answered (`"GET /name 200"`), and `close()`.
 */
export async function startRegistry(tarballs) {
  const packages = new Map();
  const files = new Map();
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0]);
    const name = path.slice(1);
    const status = files.has(path) || packages.has(name) ? 200 : 404;
    requests.push(`${req.method} ${path} ${status}`);
    if (files.has(path)) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(files.get(path));
    } else if (packages.has(name)) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(packages.get(name)));
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "Not found" }));
    }
  });
  const requests = [];
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  for (const tarball of tarballs) {
    const bytes = readFileSync(tarball);
    const manifest = manifestOf(tarball);
    const file = `/-/${basename(tarball)}`;
    files.set(file, bytes);
    packages.set(manifest.name, {
      name: manifest.name,
      "dist-tags": { latest: manifest.version },
      versions: {
        [manifest.version]: {
          ...manifest,
          _id: `${manifest.name}@${manifest.version}`,
          dist: {
            tarball: `${url.slice(0, -1)}${file}`,
            integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
            shasum: createHash("sha1").update(bytes).digest("hex"),
          },
        },
      },
    });
  }
  return { url, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}
