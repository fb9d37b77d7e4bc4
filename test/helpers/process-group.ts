// Stops a server a test started detached (its own process group: netlify-cli runs children):
// SIGTERM to the whole group, then SIGKILL if it has not exited within five seconds.
import type { ChildProcess } from "node:child_process";

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export async function stopProcessGroup(child: ChildProcess | undefined): Promise<void> {
  if (child?.pid === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  signalGroup(child.pid, "SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (child.exitCode === null) signalGroup(child.pid, "SIGKILL");
}
