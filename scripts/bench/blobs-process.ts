// The bench's Blobs server, in a process of its own. Storage is another machine on Netlify, so
// the endpoints' own time is measured without the server's work in the same thread: in-process,
// the server's handling of each request ran between the handler's steps, and requests an
// endpoint sends at once (a grant and its app's summary) were served one after another.
//   node --import tsx scripts/bench/blobs-process.ts <directory> <token>   prints its port, then serves
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BlobsServer } from "@netlify/blobs/server";
import { localBlobsContext, type LocalBlobs } from "../../test/helpers/local-blobs.ts";

const SELF = fileURLToPath(import.meta.url);

/** A local Blobs server in a child process, with the same handle as the tests' in-process one. */
export async function startBlobsProcess(siteID: string): Promise<LocalBlobs> {
  const directory = await mkdtemp(join(tmpdir(), "indieauth-bench-blobs-"));
  const token = randomBytes(16).toString("hex");
  const child = spawn(process.execPath, ["--import", "tsx", SELF, directory, token], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = "";
    child.once("exit", (code) => reject(new Error(`the bench's Blobs server exited (${code}) before it listened`)));
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^port (\d+)$/m.exec(output);
      if (line) resolve(Number(line[1]));
    });
  });
  child.removeAllListeners("exit");
  const url = `http://127.0.0.1:${port}`;
  return {
    context: localBlobsContext(siteID, token, url),
    url,
    siteID,
    token,
    directory,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

if (process.argv[1] === SELF) {
  const [directory, token] = process.argv.slice(2);
  if (!directory || !token) throw new Error("usage: blobs-process.ts <directory> <token>");
  const { port } = await new BlobsServer({ directory, token }).start();
  process.stdout.write(`port ${port}\n`);
}
